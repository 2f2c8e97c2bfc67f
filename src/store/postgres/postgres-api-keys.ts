import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { ApiKeyStore } from '../../api-keys/api-key-store.js';
import { apiKeyCreated, apiKeyRevoked } from '../../api-keys/api-key-consequences.js';
import { NO_AUDIT_DETAIL, type AuditContext } from '../../audit/audit.js';
import type { Environment } from '../../kernel/environment.js';
import { consequenceParameters } from './postgres-consequences.js';
import type { PostgresQueries } from './postgres-queries.js';
import { toApiKeyRecord, type ApiKeyRow } from '../rows.js';
import type { RevocationListener } from './revocation-listener.js';

/** An api_keys row's columns, as insertKey and importKey take them. */
export function apiKeyValues(key: ApiKeyRecord): unknown[] {
  return [key.id, key.name, key.environment, key.access, key.keyHash, key.createdAt, key.lastUsedAt, key.revokedAt];
}

/** The PostgreSQL `api_keys` table; a revocation notifies every process's RevocationListener when it commits. */
export class PostgresApiKeys implements ApiKeyStore {
  constructor(
    private readonly queries: PostgresQueries,
    private readonly revocations: RevocationListener,
  ) {}

  async insertApiKey(key: ApiKeyRecord, audit: AuditContext = NO_AUDIT_DETAIL): Promise<void> {
    await this.queries.query('insertKey', [...apiKeyValues(key), ...consequenceParameters([apiKeyCreated(key, audit)])]);
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    const row = (await this.queries.query<ApiKeyRow>('findKeyByHash', [keyHash])).rows[0];
    return row ? toApiKeyRecord(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (await this.queries.query<ApiKeyRow>('listKeys', [])).rows.map(toApiKeyRecord);
  }

  async revokeApiKey(id: string, revokedAt: string, audit: AuditContext = NO_AUDIT_DETAIL): Promise<boolean> {
    const key = (await this.queries.query<{ environment: Environment }>('findKeyEnvironment', [id])).rows[0];
    if (!key) return false;
    const values = [revokedAt, id, ...consequenceParameters([apiKeyRevoked(key.environment, id, revokedAt, audit)]), key.environment];
    const { rows } = await this.queries.query<{ exists: boolean }>('revokeKey', values);
    return rows[0]?.exists ?? false;
  }

  async recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    await this.queries.query('recordKeyUse', [usedAt, id]);
  }

  keyRevocations(): RevocationListener {
    return this.revocations;
  }
}
