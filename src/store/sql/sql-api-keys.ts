import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { ApiKeyStore } from '../../api-keys/api-key-store.js';
import type { KeyRevocationSignal } from '../../api-keys/key-revocation-signal.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import { toApiKeyRecord, type ApiKeyRow } from '../rows.js';
import type { SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

const COLUMNS = `INSERT INTO api_keys (id, name, environment, access, key_hash, created_at, last_used_at, revoked_at)
   VALUES (@id, @name, @environment, @access, @keyHash, @createdAt, @lastUsedAt, @revokedAt)`;
const INSERT = statement<{ id: string }>('insertApiKey', `${COLUMNS} ON CONFLICT (id) DO NOTHING RETURNING id`);
/** Inserts an exported key as it is, inside the import's transaction (parameters: the ApiKeyRecord). */
export const IMPORT_API_KEY = statement('importApiKey', COLUMNS);
const FIND_BY_HASH = statement<ApiKeyRow>('findApiKeyByHash', 'SELECT * FROM api_keys WHERE key_hash = @keyHash');
const FIND_BY_ID = statement<ApiKeyRow>('findApiKey', 'SELECT * FROM api_keys WHERE id = @id');
const LIST = statement<ApiKeyRow>('listApiKeys', 'SELECT * FROM api_keys ORDER BY created_at, id');
const REVOKE = statement<{ id: string }>(
  'revokeApiKey',
  'UPDATE api_keys SET revoked_at = @revokedAt WHERE id = @id AND revoked_at IS NULL RETURNING id',
);
const RECORD_USE = statement('recordApiKeyUse', 'UPDATE api_keys SET last_used_at = @usedAt WHERE id = @id');

/**
 * The `api_keys` table, written once for both databases. A revocation also
 * tells every process's key cache (SQLite's revocation counter, PostgreSQL's
 * notification), in the revocation's own transaction.
 */
export class SqlApiKeys implements ApiKeyStore {
  constructor(
    private readonly db: SqlDatabase,
    private readonly revocations: KeyRevocationSignal,
  ) {}

  async insertApiKey(key: ApiKeyRecord, consequences: WriteConsequences): Promise<void> {
    await this.db.write(INSERT, { ...key }, { consequences });
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    const row = await this.db.first(FIND_BY_HASH, { keyHash });
    return row ? toApiKeyRecord(row) : null;
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.first(FIND_BY_ID, { id });
    return row ? toApiKeyRecord(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (await this.db.all(LIST)).map(toApiKeyRecord);
  }

  async revokeApiKey(id: string, revokedAt: string, consequences: WriteConsequences): Promise<boolean> {
    return (await this.db.write(REVOKE, { id, revokedAt }, { consequences, keyRevoked: true })).length > 0;
  }

  async recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    await this.db.write(RECORD_USE, { id, usedAt });
  }

  keyRevocations(): KeyRevocationSignal {
    return this.revocations;
  }
}
