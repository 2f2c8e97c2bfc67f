import type Database from 'better-sqlite3';
import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { ApiKeyStore } from '../../api-keys/api-key-store.js';
import { NO_AUDIT_DETAIL, type AuditContext } from '../../audit/audit.js';
import type { GroupCommit } from './group-commit.js';
import type { RevocationCounter } from './revocation-counter.js';
import { apiKeyCreated, apiKeyRevoked } from '../../api-keys/api-key-consequences.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import type { SqliteHealth } from './sqlite-health.js';
import { toApiKeyRecord, type ApiKeyRow } from '../rows.js';

/** The SQLite `api_keys` table; a revocation also moves the revocation counter every process reads. */
export class SqliteApiKeys implements ApiKeyStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
    private readonly consequences: SqliteConsequences,
    private readonly revocations: RevocationCounter,
  ) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, environment, access, key_hash, created_at, last_used_at, revoked_at)
         VALUES (@id, @name, @environment, @access, @keyHash, @createdAt, @lastUsedAt, @revokedAt)`,
      ),
      findByHash: db.prepare<[Buffer], ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?'),
      list: db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id'),
      revoke: db.prepare<[string, string], ApiKeyRow>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *'),
      exists: db.prepare<[string], { id: string }>('SELECT id FROM api_keys WHERE id = ?'),
      recordUse: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    };
  }

  async insertApiKey(key: ApiKeyRecord, audit: AuditContext = NO_AUDIT_DETAIL): Promise<void> {
    await this.groupCommit.run(() => {
      this.insertRow(key);
      this.consequences.persist(apiKeyCreated(key, audit));
    });
  }

  /** Inserts the key as it is, with no audit record; call inside a transaction (the import's, a group commit's). */
  insertRow(key: ApiKeyRecord): void {
    this.statements.insert.run(key);
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    this.health.assertUsable();
    const row = this.statements.findByHash.get(keyHash);
    return row ? toApiKeyRecord(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    this.health.assertUsable();
    return this.statements.list.all().map(toApiKeyRecord);
  }

  async revokeApiKey(id: string, revokedAt: string, audit: AuditContext = NO_AUDIT_DETAIL): Promise<boolean> {
    const revoked = await this.groupCommit.run(() => {
      const row = this.statements.revoke.get(revokedAt, id);
      if (row) {
        this.revocations.recordRevocation();
        this.consequences.persist(apiKeyRevoked(toApiKeyRecord(row).environment, id, revokedAt, audit));
      }
      return row;
    });
    return revoked !== undefined || this.statements.exists.get(id) !== undefined;
  }

  async recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.recordUse.run(usedAt, id));
  }

  keyRevocations(): RevocationCounter {
    return this.revocations;
  }
}
