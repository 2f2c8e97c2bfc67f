import pg from 'pg';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import type { Environment } from '../../domain/environment.js';
import { StartupError } from '../../domain/errors.js';
import type { UserGroupRecord } from '../../domain/user-group.js';
import { jsonOrNull } from '../json-column.js';
import type { ImportBatch, NewUserGroup, Store, TokenReplacement, UserGroupChanges } from '../store.js';
import { migratePostgres } from './migrate-postgres.js';
import { toApiKeyRecord, toUserGroupRecord, type ApiKeyRow, type UserGroupRow } from './postgres-rows.js';
import { withRetry, type RetryPolicy } from './transient-errors.js';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Connections this process may hold; replicas x poolSize must fit the server's max_connections. */
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  retry?: RetryPolicy;
}

/** Named statements: `pg` prepares each once per connection and reuses the plan. */
const SQL = {
  getSetting: 'SELECT value FROM settings WHERE name = $1',
  putSettingIfAbsent: 'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
  findGroup: 'SELECT * FROM user_groups WHERE environment = $1 AND provided_id = $2',
  findGroupByToken: 'SELECT * FROM user_groups WHERE environment = $1 AND token_hash = $2',
  insertGroup: `INSERT INTO user_groups (environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                ON CONFLICT (environment, provided_id) DO NOTHING
                RETURNING *`,
  updateGroup: `UPDATE user_groups SET
                  name       = CASE WHEN $1::boolean THEN $2 ELSE name END,
                  mapping    = CASE WHEN $3::boolean THEN $4 ELSE mapping END,
                  properties = CASE WHEN $5::boolean THEN $6 ELSE properties END,
                  updated_at = $7
                WHERE environment = $8 AND provided_id = $9
                RETURNING *`,
  // Matching the new hash too makes a retry after a lost acknowledgement land on the same result.
  replaceToken: `UPDATE user_groups SET token_hash = $1, token_ciphertext = $2, updated_at = $3
                 WHERE team_id = $4 AND (token_hash = $5 OR token_hash = $1)
                 RETURNING *`,
  insertKey: `INSERT INTO api_keys (id, name, environment, access, key_hash, created_at, last_used_at, revoked_at)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
              ON CONFLICT (id) DO NOTHING`,
  findKeyByHash: 'SELECT * FROM api_keys WHERE key_hash = $1',
  listKeys: 'SELECT * FROM api_keys ORDER BY created_at, id',
  revokeKey: 'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2',
  recordKeyUse: 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2',
  ping: 'SELECT 1',
  listGroupsAfter: 'SELECT * FROM user_groups WHERE team_id > $1 ORDER BY team_id LIMIT $2',
  anyRow: 'SELECT EXISTS (SELECT 1 FROM user_groups) OR EXISTS (SELECT 1 FROM api_keys) AS any',
  importGroup: `INSERT INTO user_groups (team_id, environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
  advanceTeamIds: `SELECT setval(pg_get_serial_sequence('user_groups', 'team_id'), (SELECT max(team_id) FROM user_groups))
                   WHERE EXISTS (SELECT 1 FROM user_groups)`,
} as const;

type StatementName = keyof typeof SQL;

function apiKeyValues(key: ApiKeyRecord): unknown[] {
  return [key.id, key.name, key.environment, key.access, key.keyHash, key.createdAt, key.lastUsedAt, key.revokedAt];
}

/** Where a connection string points, without its password, for error messages. */
export function describeDatabase(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || 5432}${url.pathname}`;
  } catch {
    return 'the DATABASE_URL database';
  }
}

/**
 * The store for many replicas: PostgreSQL (or a compatible distributed
 * database). Every request-path statement is a single statement in autocommit,
 * using only INSERT ... ON CONFLICT, UPDATE ... RETURNING and indexed reads,
 * so no transaction spans a round trip and nothing needs advisory locks.
 */
export class PostgresStore implements Store {
  private readonly pool: pg.Pool;
  private readonly retry: RetryPolicy;

  private constructor(pool: pg.Pool, retry: RetryPolicy) {
    this.pool = pool;
    this.retry = retry;
  }

  static async open(options: PostgresStoreOptions): Promise<{ store: PostgresStore; appliedMigrations: string[] }> {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      application_name: 'user-group-service',
    });
    // An idle connection that breaks (database restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    try {
      await pool.query(SQL.ping);
    } catch (error) {
      await pool.end();
      throw new StartupError(`Cannot reach PostgreSQL at ${describeDatabase(options.connectionString)}: ${(error as Error).message}`);
    }
    try {
      const appliedMigrations = await migratePostgres(pool);
      return { store: new PostgresStore(pool, options.retry ?? { attempts: 3, baseDelayMs: 25 }), appliedMigrations };
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private async query<Row extends pg.QueryResultRow>(name: StatementName, values: unknown[], idempotent = true): Promise<pg.QueryResult<Row>> {
    return withRetry(() => this.pool.query<Row>({ name: `ugs_${name}`, text: SQL[name], values }), idempotent, this.retry);
  }

  async ping(): Promise<void> {
    await this.pool.query(SQL.ping);
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  async getSetting(name: string): Promise<string | null> {
    return (await this.query<{ value: string }>('getSetting', [name])).rows[0]?.value ?? null;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    await this.query('putSettingIfAbsent', [name, value]);
    return (await this.getSetting(name))!;
  }

  async findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null> {
    const row = (await this.query<UserGroupRow>('findGroup', [environment, providedId])).rows[0];
    return row ? toUserGroupRecord(row) : null;
  }

  async findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null> {
    const row = (await this.query<UserGroupRow>('findGroupByToken', [environment, tokenHash])).rows[0];
    return row ? toUserGroupRecord(row) : null;
  }

  async insertUserGroupIfAbsent(group: NewUserGroup): Promise<{ group: UserGroupRecord; created: boolean }> {
    const inserted = (
      await this.query<UserGroupRow>('insertGroup', [
        group.environment,
        group.providedId,
        group.name,
        jsonOrNull(group.mapping),
        jsonOrNull(group.properties),
        group.tokenHash,
        group.tokenCiphertext,
        group.createdAt,
        group.updatedAt,
      ])
    ).rows[0];
    if (inserted) return { group: toUserGroupRecord(inserted), created: true };
    // ON CONFLICT waited for the competing insert to commit, so the row is visible now.
    const existing = await this.findUserGroup(group.environment, group.providedId);
    if (!existing) throw new Error('user group vanished between conflict and read');
    return { group: existing, created: false };
  }

  async updateUserGroup(environment: Environment, providedId: string, changes: UserGroupChanges): Promise<UserGroupRecord | null> {
    const row = (
      await this.query<UserGroupRow>('updateGroup', [
        changes.name !== undefined,
        changes.name ?? null,
        changes.mapping !== undefined,
        jsonOrNull(changes.mapping),
        changes.properties !== undefined,
        jsonOrNull(changes.properties),
        changes.updatedAt,
        environment,
        providedId,
      ])
    ).rows[0];
    return row ? toUserGroupRecord(row) : null;
  }

  async replaceToken(r: TokenReplacement): Promise<UserGroupRecord | null> {
    const row = (await this.query<UserGroupRow>('replaceToken', [r.tokenHash, r.tokenCiphertext, r.updatedAt, r.teamId, r.expectedTokenHash])).rows[0];
    return row ? toUserGroupRecord(row) : null;
  }

  async listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return (await this.query<UserGroupRow>('listGroupsAfter', [afterTeamId, limit])).rows.map(toUserGroupRecord);
  }

  async isEmpty(): Promise<boolean> {
    return !(await this.query<{ any: boolean }>('anyRow', [])).rows[0]?.any;
  }

  async importBatch(batch: ImportBatch): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      for (const g of batch.userGroups) {
        await client.query({
          name: 'ugs_importGroup',
          text: SQL.importGroup,
          values: [g.teamId, g.environment, g.providedId, g.name, jsonOrNull(g.mapping), jsonOrNull(g.properties), g.tokenHash, g.tokenCiphertext, g.createdAt, g.updatedAt],
        });
      }
      for (const k of batch.apiKeys) await client.query({ name: 'ugs_insertKey', text: SQL.insertKey, values: apiKeyValues(k) });
      await client.query(SQL.advanceTeamIds);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.query('insertKey', apiKeyValues(key));
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    const row = (await this.query<ApiKeyRow>('findKeyByHash', [keyHash])).rows[0];
    return row ? toApiKeyRecord(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (await this.query<ApiKeyRow>('listKeys', [])).rows.map(toApiKeyRecord);
  }

  async revokeApiKey(id: string, revokedAt: string): Promise<boolean> {
    return ((await this.query('revokeKey', [revokedAt, id])).rowCount ?? 0) > 0;
  }

  async recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    await this.query('recordKeyUse', [usedAt, id]);
  }
}
