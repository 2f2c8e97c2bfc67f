import type { ApiKeyRecord } from '../../src/api-keys/api-key.js';
import { apiKeyCreated, apiKeyRevoked } from '../../src/api-keys/api-key-consequences.js';
import type { ApiKeyStore } from '../../src/api-keys/api-key-store.js';
import { NO_AUDIT_DETAIL, type AuditContext } from '../../src/audit/audit.js';

/** Inserts a key with the consequences ApiKeyService decides for it, as store tests write keys. */
export function insertKey(store: { apiKeys: ApiKeyStore }, key: ApiKeyRecord, audit: AuditContext = NO_AUDIT_DETAIL): Promise<void> {
  return store.apiKeys.insertApiKey(key, apiKeyCreated(key, audit));
}

/** Revokes a key with the consequences ApiKeyService decides (for the key's environment); true when this call revoked it. */
export async function revokeKey(
  store: { apiKeys: ApiKeyStore },
  id: string,
  at: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
): Promise<boolean> {
  const environment = (await store.apiKeys.findApiKey(id))?.environment ?? 'Customer';
  return store.apiKeys.revokeApiKey(id, at, apiKeyRevoked(environment, id, at, audit));
}
