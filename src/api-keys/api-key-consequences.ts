import type { ApiKeyRecord } from './api-key.js';
import type { AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, type WriteConsequences } from '../consequences/write-consequences.js';

/** A key created: its record and event name the key itself. */
export function apiKeyCreated(key: ApiKeyRecord, audit: AuditContext): WriteConsequences {
  return auditedChange(
    'api_key.created',
    key.createdAt,
    { environment: key.environment, teamId: null, providedId: null },
    { ...audit, keyId: key.id },
  );
}

/** A key revoked (the first time only: a revoked key revoked again changes nothing). */
export function apiKeyRevoked(environment: Environment, keyId: string, at: string, audit: AuditContext): WriteConsequences {
  return auditedChange('api_key.revoked', at, { environment, teamId: null, providedId: null }, { ...audit, keyId });
}
