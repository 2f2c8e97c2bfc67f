import type { ApiKeyRecord } from './api-key.js';
import type { AuditContext } from '../audit/audit.js';
import type { KeyRevocationSignal } from './key-revocation-signal.js';

/** The storage ApiKeyService needs: a port, implemented in src/store for each database. */
export interface ApiKeyStore {
  insertApiKey(key: ApiKeyRecord, audit?: AuditContext): Promise<void>;
  findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (keeping the first revocation time); false when no such key. */
  revokeApiKey(id: string, revokedAt: string, audit?: AuditContext): Promise<boolean>;
  /**
   * Tells this process's key cache of revocations made through any connection
   * to this store (see KeyRevocationSignal for how exact each store is).
   */
  keyRevocations(): KeyRevocationSignal;
  recordApiKeyUse(id: string, usedAt: string): Promise<void>;
}
