import type { AuditQuery, AuditRecord } from './audit.js';

/**
 * The audit log as `ugs audit` reads it: a port, implemented in src/store for
 * each database. Records are appended by the writes themselves, in the same
 * transaction (see UserGroupStore and ApiKeyStore), never through this port.
 */
export interface AuditStore {
  /** Audit records, oldest first (or newest first when asked), filtered by group, time and environment. */
  listAuditRecords(query: AuditQuery): Promise<AuditRecord[]>;
}
