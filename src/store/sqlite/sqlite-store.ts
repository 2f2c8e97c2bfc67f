import type Database from 'better-sqlite3';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import { NO_AUDIT_DETAIL, type AuditAction, type AuditContext, type AuditQuery, type AuditRecord } from '../../domain/audit.js';
import type { Environment } from '../../domain/environment.js';
import type { UserGroupRecord } from '../../domain/user-group.js';
import { SILENT_STORE_LOG, type ImportBatch, type NewUserGroup, type Store, type StoreLog, type TokenReplacement, type UserGroupChanges } from '../store.js';
import { perTurnBatch, type PerTurnBatch } from '../per-turn-batch.js';
import { DatabaseFileWatch } from './database-file-watch.js';
import { BUSY_TIMEOUT_MS, GroupCommit } from './group-commit.js';
import { openSqlite } from './open-sqlite.js';
import { RevocationCounter } from './revocation-counter.js';
import { SqliteHealth } from './sqlite-health.js';
import { jsonOrNull } from '../json-column.js';
import { newGroupColumns } from '../group-columns.js';
import { groupRevocation, type EmbedRevocation, type EmbedSessionRecord } from '../../domain/embed-session.js';
import type { SigningKeyRecord } from '../../domain/signing-key.js';
import { SqliteEmbedSessions } from './sqlite-embed-sessions.js';
import { SqliteSigningKeys } from './sqlite-signing-keys.js';
import { toApiKeyRecord, toAuditRecord, toUserGroupRecord, type ApiKeyRow, type AuditRow, type UserGroupRow } from './sqlite-rows.js';

export interface SqliteStoreOptions {
  /** Path of the database file; its folder is created when missing. */
  path: string;
  /** How long a write waits for another process's lock (the CLI and the server share the file). */
  busyTimeoutMs?: number;
  /** Create a store even where the data dir's store-id names one that is missing (`ugs migrate --create`; see open-sqlite.ts). */
  create?: boolean;
  /** Where the store says, once, that its file is gone or its disk refuses writes. */
  log?: StoreLog;
}

/**
 * The embedded default store: one SQLite file in WAL mode with
 * synchronous=FULL, so an acknowledged write survives a crash or power loss.
 * better-sqlite3 is synchronous; each method is a few short statements, so
 * the event loop is held for microseconds, and the single connection makes
 * every method atomic with respect to this process's other requests. Writes
 * go through group commit (one transaction and one fsync per burst); group
 * lookups through per-turn batches (one read transaction per burst).
 *
 * Every call first asks `health` whether the file is still there (a field
 * read); a file deleted or replaced, a disk full or read-only, answer 503
 * `unavailable` (sqlite-health.ts).
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly statements;
  private readonly groupCommit: GroupCommit;
  private readonly revocations: RevocationCounter;
  private readonly health: SqliteHealth;
  private readonly groupById: PerTurnBatch<[Environment, string], UserGroupRecord | null>;
  private readonly groupByTokenHash: PerTurnBatch<[Environment, Buffer], UserGroupRecord | null>;
  private readonly embedSessions: SqliteEmbedSessions;
  private readonly signingKeys: SqliteSigningKeys;

  private constructor(db: Database.Database, busyTimeoutMs: number, health: SqliteHealth) {
    this.db = db;
    this.health = health;
    this.groupCommit = new GroupCommit(db, busyTimeoutMs, health);
    this.revocations = new RevocationCounter(db, () => db.open && health.usable);
    this.embedSessions = new SqliteEmbedSessions(db, this.groupCommit, health, (action, at, subject, audit) => this.appendAudit(action, at, subject, audit));
    this.signingKeys = new SqliteSigningKeys(db, this.groupCommit, health);
    this.statements = {
      getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?'),
      putSettingIfAbsent: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
      replaceSetting: db.prepare('UPDATE settings SET value = ? WHERE name = ? AND value = ?'),
      putSetting: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'),
      listSettings: db.prepare<[number, string], { name: string; value: string }>('SELECT name, value FROM settings WHERE substr(name, 1, ?) = ? ORDER BY name'),
      deleteSetting: db.prepare('DELETE FROM settings WHERE name = ?'),
      replaceCiphertext: db.prepare('UPDATE user_groups SET token_ciphertext = ? WHERE team_id = ? AND token_ciphertext = ?'),
      findGroup: db.prepare<[string, string], UserGroupRow>('SELECT * FROM user_groups WHERE environment = ? AND provided_id = ?'),
      findGroupByToken: db.prepare<[string, Buffer], UserGroupRow>('SELECT * FROM user_groups WHERE environment = ? AND token_hash = ?'),
      insertGroup: db.prepare<unknown[], UserGroupRow>(
        `INSERT INTO user_groups (environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (environment, provided_id) DO NOTHING
         RETURNING *`,
      ),
      updateGroup: db.prepare<unknown[], UserGroupRow>(
        `UPDATE user_groups SET
           name       = CASE WHEN ? THEN ? ELSE name END,
           mapping    = CASE WHEN ? THEN ? ELSE mapping END,
           properties = CASE WHEN ? THEN ? ELSE properties END,
           updated_at = ?
         WHERE environment = ? AND provided_id = ?
         RETURNING *`,
      ),
      replaceToken: db.prepare<unknown[], UserGroupRow>(
        `UPDATE user_groups SET token_hash = ?, token_ciphertext = ?, updated_at = ?
         WHERE team_id = ? AND token_hash = ?
         RETURNING *`,
      ),
      insertKey: db.prepare(
        `INSERT INTO api_keys (id, name, environment, access, key_hash, created_at, last_used_at, revoked_at)
         VALUES (@id, @name, @environment, @access, @keyHash, @createdAt, @lastUsedAt, @revokedAt)`,
      ),
      findKeyByHash: db.prepare<[Buffer], ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = ?'),
      listKeys: db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id'),
      revokeKey: db.prepare<[string, string], ApiKeyRow>('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *'),
      keyExists: db.prepare<[string], { id: string }>('SELECT id FROM api_keys WHERE id = ?'),
      appendAudit: db.prepare(
        `INSERT INTO audit_log (at, action, environment, team_id, provided_id, key_id, fields, client_address)
         VALUES (@at, @action, @environment, @teamId, @providedId, @keyId, @fields, @clientAddress)`,
      ),
      importAudit: db.prepare(
        `INSERT INTO audit_log (id, at, action, environment, team_id, provided_id, key_id, fields, client_address)
         VALUES (@id, @at, @action, @environment, @teamId, @providedId, @keyId, @fields, @clientAddress)`,
      ),
      listAuditAfter: db.prepare<[number, number], AuditRow>('SELECT * FROM audit_log WHERE id > ? ORDER BY id LIMIT ?'),
      recordKeyUse: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
      ping: db.prepare('SELECT 1'),
      listGroups: db.prepare<[{ environment: string; before: number; prefix: string | null; limit: number }], UserGroupRow>(
        `SELECT * FROM user_groups
         WHERE environment = @environment AND team_id < @before
           AND (@prefix IS NULL OR substr(provided_id, 1, length(@prefix)) = @prefix OR substr(name, 1, length(@prefix)) = @prefix)
         ORDER BY team_id DESC LIMIT @limit`,
      ),
      countGroups: db.prepare<[], { environment: string; n: number }>('SELECT environment, count(*) AS n FROM user_groups GROUP BY environment'),
      deleteGroup: db.prepare<[string, string], UserGroupRow>('DELETE FROM user_groups WHERE environment = ? AND provided_id = ? RETURNING *'),
      listGroupsAfter: db.prepare<[number, number], UserGroupRow>('SELECT * FROM user_groups WHERE team_id > ? ORDER BY team_id LIMIT ?'),
      anyRow: db.prepare<[], { n: number }>(
        'SELECT (SELECT count(*) FROM user_groups) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM audit_log) AS n',
      ),
      // An explicit team_id also advances AUTOINCREMENT's sequence, so new ids stay above imported ones.
      importGroup: db.prepare(
        `INSERT INTO user_groups (team_id, environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at)
         VALUES (@teamId, @environment, @providedId, @name, @mapping, @properties, @tokenHash, @tokenCiphertext, @createdAt, @updatedAt)`,
      ),
    };
    // One read transaction per batch of lookups: one snapshot, and one WAL read lock instead of one per lookup.
    const snapshot = db.transaction((read: () => (UserGroupRecord | null)[]) => read());
    const inOneSnapshot = (read: () => (UserGroupRecord | null)[]) => {
      health.assertUsable();
      return snapshot(read);
    };
    const recordOrNull = (row: UserGroupRow | undefined) => (row ? toUserGroupRecord(row) : null);
    this.groupById = perTurnBatch(async (keys) =>
      inOneSnapshot(() => keys.map(([environment, providedId]) => recordOrNull(this.statements.findGroup.get(environment, providedId)))),
    );
    this.groupByTokenHash = perTurnBatch(async (keys) =>
      inOneSnapshot(() => keys.map(([environment, tokenHash]) => recordOrNull(this.statements.findGroupByToken.get(environment, tokenHash)))),
    );
  }

  /** Opens (creating when missing; see open-sqlite.ts for when not) and migrates the database at `options.path`. */
  static async open(options: SqliteStoreOptions): Promise<{ store: SqliteStore; appliedMigrations: string[] }> {
    const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS;
    const { db, appliedMigrations } = await openSqlite({ path: options.path, busyTimeoutMs, create: options.create });
    const health = new SqliteHealth(options.path, new DatabaseFileWatch(options.path), options.log ?? SILENT_STORE_LOG);
    health.start();
    return { store: new SqliteStore(db, busyTimeoutMs, health), appliedMigrations };
  }

  async ping(): Promise<void> {
    this.health.assertReady();
    this.statements.ping.get();
  }

  async close(): Promise<void> {
    this.health.stop();
    if (this.db.open) this.db.close();
  }

  async getSetting(name: string): Promise<string | null> {
    this.health.assertUsable();
    return this.statements.getSetting.get(name)?.value ?? null;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    await this.groupCommit.run(() => this.statements.putSettingIfAbsent.run(name, value));
    return this.statements.getSetting.get(name)!.value;
  }

  async replaceSetting(name: string, expected: string, value: string): Promise<boolean> {
    return this.groupCommit.run(() => this.statements.replaceSetting.run(value, name, expected).changes > 0);
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.putSetting.run(name, value));
  }

  async listSettings(prefix: string): Promise<{ name: string; value: string }[]> {
    return this.statements.listSettings.all(prefix.length, prefix);
  }

  async deleteSetting(name: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.deleteSetting.run(name));
  }

  async replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean> {
    return this.groupCommit.run(() => this.statements.replaceCiphertext.run(next, teamId, expected).changes > 0);
  }

  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null> {
    return this.groupById([environment, providedId]);
  }

  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null> {
    return this.groupByTokenHash([environment, tokenHash]);
  }

  /** Appends the audit record of a change; call inside the change's transaction. */
  private appendAudit(action: AuditAction, at: string, subject: { environment: string; teamId: number | null; providedId: string | null }, audit: AuditContext): void {
    this.statements.appendAudit.run({ at, action, ...subject, keyId: audit.keyId, fields: JSON.stringify(audit.fields), clientAddress: audit.clientAddress ?? null });
  }

  async insertUserGroupIfAbsent(group: NewUserGroup, audit: AuditContext = NO_AUDIT_DETAIL): Promise<{ group: UserGroupRecord; created: boolean }> {
    return this.groupCommit.run(() => {
      const row = this.insertGroupRow(group);
      if (row) {
        this.appendAudit('user_group.created', row.created_at, { environment: row.environment, teamId: row.team_id, providedId: row.provided_id }, audit);
        return { group: toUserGroupRecord(row), created: true };
      }
      const existing = this.statements.findGroup.get(group.environment, group.providedId);
      if (!existing) throw new Error('user group vanished between conflict and read');
      return { group: toUserGroupRecord(existing), created: false };
    });
  }

  private insertGroupRow(group: NewUserGroup): UserGroupRow | undefined {
    return this.statements.insertGroup.get(...newGroupColumns(group));
  }

  async updateUserGroup(
    environment: Environment,
    providedId: string,
    changes: UserGroupChanges,
    audit: AuditContext = NO_AUDIT_DETAIL,
  ): Promise<UserGroupRecord | null> {
    const row = await this.groupCommit.run(() => {
      const updated = this.updateGroupRow(environment, providedId, changes);
      if (updated) this.appendAudit('user_group.updated', changes.updatedAt, { environment, teamId: updated.team_id, providedId }, audit);
      return updated;
    });
    return row ? toUserGroupRecord(row) : null;
  }

  private updateGroupRow(environment: Environment, providedId: string, changes: UserGroupChanges): UserGroupRow | undefined {
    return this.statements.updateGroup.get(
      changes.name !== undefined ? 1 : 0,
      changes.name ?? null,
      changes.mapping !== undefined ? 1 : 0,
      jsonOrNull(changes.mapping),
      changes.properties !== undefined ? 1 : 0,
      jsonOrNull(changes.properties),
      changes.updatedAt,
      environment,
      providedId,
    );
  }

  async replaceToken(r: TokenReplacement, audit: AuditContext = NO_AUDIT_DETAIL): Promise<UserGroupRecord | null> {
    const row = await this.groupCommit.run(() => {
      const replaced = this.statements.replaceToken.get(r.tokenHash, r.tokenCiphertext, r.updatedAt, r.teamId, r.expectedTokenHash);
      if (replaced) {
        const subject = { environment: replaced.environment, teamId: replaced.team_id, providedId: replaced.provided_id };
        this.appendAudit('user_group.token_rotated', r.updatedAt, subject, audit);
        // The sessions minted under the old token end with it.
        this.embedSessions.appendRevocation(groupRevocation({ ...toUserGroupRecord(replaced), tokenHash: r.expectedTokenHash }, 'token_rotated', r.updatedAt));
      }
      return replaced;
    });
    return row ? toUserGroupRecord(row) : null;
  }

  async listUserGroups(environment: Environment, page: { beforeTeamId: number; limit: number; prefix?: string }): Promise<UserGroupRecord[]> {
    this.health.assertUsable();
    return this.statements.listGroups.all({ environment, before: page.beforeTeamId, prefix: page.prefix ?? null, limit: page.limit }).map(toUserGroupRecord);
  }

  async countUserGroups(): Promise<Record<Environment, number>> {
    this.health.assertUsable();
    const counts: Record<Environment, number> = { Customer: 0, Testing: 0 };
    for (const row of this.statements.countGroups.all()) counts[row.environment as Environment] = row.n;
    return counts;
  }

  async deleteUserGroup(
    environment: Environment,
    providedId: string,
    deletedAt: string,
    audit: AuditContext = NO_AUDIT_DETAIL,
  ): Promise<UserGroupRecord | null> {
    const row = await this.groupCommit.run(() => {
      const deleted = this.statements.deleteGroup.get(environment, providedId);
      if (deleted) {
        this.appendAudit('user_group.deleted', deletedAt, { environment, teamId: deleted.team_id, providedId }, audit);
        this.embedSessions.appendRevocation(groupRevocation(toUserGroupRecord(deleted), 'user_group_deleted', deletedAt));
      }
      return deleted;
    });
    return row ? toUserGroupRecord(row) : null;
  }

  async listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    this.health.assertUsable();
    return this.statements.listGroupsAfter.all(afterTeamId, limit).map(toUserGroupRecord);
  }

  async isEmpty(): Promise<boolean> {
    this.health.assertUsable();
    return this.statements.anyRow.get()!.n === 0;
  }

  async importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void> {
    this.health.assertUsable();
    // One transaction across awaits: an import is the only user of its connection.
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const [name, value] of Object.entries(settings)) this.statements.putSettingIfAbsent.run(name, value);
      for await (const batch of batches) {
        for (const group of batch.userGroups) {
          this.statements.importGroup.run({ ...group, mapping: jsonOrNull(group.mapping), properties: jsonOrNull(group.properties) });
        }
        for (const key of batch.apiKeys) this.statements.insertKey.run(key);
        for (const record of batch.auditRecords) this.statements.importAudit.run({ ...record, fields: JSON.stringify(record.fields) });
      }
      this.health.beforeCommit();
      this.db.exec('COMMIT');
    } catch (error) {
      throw this.health.failed(error);
    } finally {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
  }

  async listAuditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    this.health.assertUsable();
    const where: string[] = [];
    const values: Record<string, unknown> = { limit: query.limit };
    if (query.group && 'teamId' in query.group) {
      where.push('team_id = @teamId');
      values.teamId = query.group.teamId;
    } else if (query.group) {
      where.push('provided_id = @providedId');
      values.providedId = query.group.providedId;
    }
    if (query.since) {
      where.push('at >= @since');
      values.since = query.since;
    }
    // Filters vary per call, so this one statement is prepared on demand (it is not on the request path).
    const sql = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT @limit`;
    return this.db.prepare<Record<string, unknown>, AuditRow>(sql).all(values).map(toAuditRecord);
  }

  async listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    this.health.assertUsable();
    return this.statements.listAuditAfter.all(afterId, limit).map(toAuditRecord);
  }

  async insertApiKey(key: ApiKeyRecord, audit: AuditContext = NO_AUDIT_DETAIL): Promise<void> {
    await this.groupCommit.run(() => {
      this.statements.insertKey.run(key);
      this.appendAudit('api_key.created', key.createdAt, { environment: key.environment, teamId: null, providedId: null }, { ...audit, keyId: key.id });
    });
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    this.health.assertUsable();
    const row = this.statements.findKeyByHash.get(keyHash);
    return row ? toApiKeyRecord(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    this.health.assertUsable();
    return this.statements.listKeys.all().map(toApiKeyRecord);
  }

  async revokeApiKey(id: string, revokedAt: string, audit: AuditContext = NO_AUDIT_DETAIL): Promise<boolean> {
    const revoked = await this.groupCommit.run(() => {
      const row = this.statements.revokeKey.get(revokedAt, id);
      if (row) {
        this.revocations.recordRevocation();
        this.appendAudit('api_key.revoked', revokedAt, { environment: row.environment, teamId: null, providedId: null }, { ...audit, keyId: id });
      }
      return row;
    });
    return revoked !== undefined || this.statements.keyExists.get(id) !== undefined;
  }

  async recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.recordKeyUse.run(usedAt, id));
  }

  keyRevocations(): RevocationCounter {
    return this.revocations;
  }

  insertEmbedSession(session: EmbedSessionRecord, now: string): Promise<void> {
    return this.embedSessions.insertEmbedSession(session, now);
  }

  findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    return this.embedSessions.findEmbedSession(environment, sessionId);
  }

  revokeEmbedSession(environment: Environment, sessionId: string, revokedAt: string, audit: AuditContext): Promise<EmbedSessionRecord | null> {
    return this.embedSessions.revokeEmbedSession(environment, sessionId, revokedAt, audit);
  }

  listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]> {
    return this.embedSessions.listEmbedRevocations(environment, afterSequence, limit, now);
  }

  listSigningKeys(): Promise<SigningKeyRecord[]> {
    return this.signingKeys.listSigningKeys();
  }

  insertSigningKey(key: SigningKeyRecord): Promise<boolean> {
    return this.signingKeys.insertSigningKey(key);
  }

  deleteSigningKeys(kids: readonly string[]): Promise<void> {
    return this.signingKeys.deleteSigningKeys(kids);
  }

  replaceSigningKeyCiphertext(kid: string, expected: Buffer, next: Buffer): Promise<boolean> {
    return this.signingKeys.replaceSigningKeyCiphertext(kid, expected, next);
  }
}
