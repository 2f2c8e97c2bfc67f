import pg from 'pg';
import type { ApiKeyRecord } from '../../domain/api-key.js';
import { NO_AUDIT_DETAIL, type AuditContext, type AuditQuery, type AuditRecord } from '../../domain/audit.js';
import type { Environment } from '../../domain/environment.js';
import { ServiceError, StartupError } from '../../domain/errors.js';
import type { UserGroupRecord } from '../../domain/user-group.js';
import { jsonOrNull } from '../json-column.js';
import { newGroupColumns } from '../group-columns.js';
import type { ImportBatch, NewUserGroup, Store, TokenReplacement, UserGroupChanges } from '../store.js';
import { perTurnBatch, type PerTurnBatch } from '../per-turn-batch.js';
import { migratePostgres } from './migrate-postgres.js';
import { SQL } from './postgres-statements.js';
import { toApiKeyRecord, toAuditRecord, toUserGroupRecord, type ApiKeyRow, type AuditRow, type UserGroupRow } from './postgres-rows.js';
import { RevocationListener } from './revocation-listener.js';
import type { EmbedRevocation, EmbedSessionRecord } from '../../domain/embed-session.js';
import type { SigningKeyRecord } from '../../domain/signing-key.js';
import { PostgresEmbedSessions } from './postgres-embed-sessions.js';
import { PostgresSigningKeys } from './postgres-signing-keys.js';
import { asUnavailable, withRetry, type RetryPolicy } from './transient-errors.js';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Connections this process may hold; replicas x poolSize must fit the server's max_connections. */
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  retry?: RetryPolicy;
}



type StatementName = keyof typeof SQL;

/** An audit record's own parameters, last in every audited statement: key_id, fields, client_address. */
function auditValues(audit: AuditContext): [string | null, string, string | null] {
  return [audit.keyId, JSON.stringify(audit.fields), audit.clientAddress ?? null];
}

interface AuditedGroup {
  group: NewUserGroup;
  audit: AuditContext;
}

/** The parameters of insertGroup; insertGroups takes the same, one array each. */
function insertValues({ group, audit }: AuditedGroup): unknown[] {
  return [...newGroupColumns(group), ...auditValues(audit)];
}

interface AuditedChange {
  environment: Environment;
  providedId: string;
  changes: UserGroupChanges;
  audit: AuditContext;
}

/** The parameters of updateGroup; updateGroups takes the same, one array each. */
function updateValues({ environment, providedId, changes, audit }: AuditedChange): unknown[] {
  return [
    changes.name !== undefined,
    changes.name ?? null,
    changes.mapping !== undefined,
    jsonOrNull(changes.mapping),
    changes.properties !== undefined,
    jsonOrNull(changes.properties),
    changes.updatedAt,
    environment,
    providedId,
    ...auditValues(audit),
  ];
}

interface AuditedReplacement {
  replacement: TokenReplacement;
  audit: AuditContext;
}

/** The parameters of replaceToken; replaceTokens takes the same, one array each. */
function replaceValues({ replacement: r, audit }: AuditedReplacement): unknown[] {
  return [r.tokenHash, r.tokenCiphertext, r.updatedAt, r.teamId, r.expectedTokenHash, ...auditValues(audit)];
}

/**
 * Splits a batch into rounds in which no key repeats: the n-th input with a
 * key goes in round n, so two changes to one group in one turn apply one after
 * the other, in arrival order. Each round is a list of positions in `inputs`.
 */
function inRounds<I>(inputs: readonly I[], keyOf: (input: I) => string): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  inputs.forEach((input, position) => {
    const key = keyOf(input);
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    (rounds[round] ??= []).push(position);
  });
  return rounds;
}

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
 * so no transaction spans a round trip; the one advisory lock (FEED_ORDER_LOCK)
 * is taken and released inside the statements that append revocations.
 */
export class PostgresStore implements Store {
  private readonly pool: pg.Pool;
  private readonly retry: RetryPolicy;
  private readonly revocations: RevocationListener;
  private readonly groupById: PerTurnBatch<[Environment, string], UserGroupRecord | null>;
  private readonly groupByTokenHash: PerTurnBatch<[Environment, Buffer], UserGroupRecord | null>;
  private readonly insertedGroup: PerTurnBatch<AuditedGroup, UserGroupRow | null>;
  private readonly updatedGroup: PerTurnBatch<AuditedChange, UserGroupRow | null>;
  private readonly replacedToken: PerTurnBatch<AuditedReplacement, UserGroupRow | null>;
  private readonly embedSessions: PostgresEmbedSessions;
  private readonly signingKeys: PostgresSigningKeys;

  private constructor(pool: pg.Pool, retry: RetryPolicy, revocations: RevocationListener) {
    this.pool = pool;
    this.retry = retry;
    this.revocations = revocations;
    const run = <Row extends pg.QueryResultRow>(name: string, text: string, values: unknown[], idempotent = true) =>
      withRetry(() => this.pool.query<Row>({ name: `ugs_${name}`, text, values }), idempotent, this.retry).catch((error: unknown) => {
        throw asUnavailable(error);
      });
    this.embedSessions = new PostgresEmbedSessions(run);
    this.signingKeys = new PostgresSigningKeys(run);
    // Concurrent lookups share one query and one round trip (see per-turn-batch.ts).
    this.groupById = perTurnBatch((keys) => this.findGroups('findGroups', keys, (row) => [row.environment, row.provided_id]));
    this.groupByTokenHash = perTurnBatch((keys) => this.findGroups('findGroupsByToken', keys, (row) => [row.environment, row.token_hash]));
    // Concurrent creates share one statement and one commit: PostgreSQL's counterpart of SQLite's group commit.
    this.insertedGroup = perTurnBatch((inputs) => this.insertGroups(inputs));
    // Updates and rotations likewise, in rounds so that two changes to one group apply in order.
    this.updatedGroup = perTurnBatch((inputs) =>
      this.roundByRound(inputs, (i) => `${i.environment}\u0000${i.providedId}`, (round) => this.changeGroups('updateGroups', 'updateGroup', round.map(updateValues))),
    );
    this.replacedToken = perTurnBatch((inputs) =>
      this.roundByRound(inputs, (i) => String(i.replacement.teamId), (round) => this.changeGroups('replaceTokens', 'replaceToken', round.map(replaceValues))),
    );
  }

  /** Each input's inserted row, or null when its (environment, provided_id) already existed. */
  private insertGroups(inputs: readonly AuditedGroup[]): Promise<(UserGroupRow | null | Error)[]> {
    // An INSERT cannot return its input's position; the token hash, unique to each input, tells it.
    const position = new Map(inputs.map((input, i) => [input.group.tokenHash.toString('hex'), i]));
    return this.batched('insertGroups', 'insertGroup', inputs.map(insertValues), (row) => position.get(row.token_hash.toString('hex')));
  }

  /** Each input's changed row, or null when no group matched; the batched statement returns each row's `input_n`. */
  private changeGroups(batchedStatement: 'updateGroups' | 'replaceTokens', single: 'updateGroup' | 'replaceToken', rowsOfValues: unknown[][]) {
    return this.batched<UserGroupRow & { input_n: string }>(batchedStatement, single, rowsOfValues, (row) => Number(row.input_n) - 1);
  }

  /** `change` for each round of `inRounds`, one round after the other; the answers in input order. */
  private async roundByRound<I>(inputs: readonly I[], keyOf: (input: I) => string, change: (round: I[]) => Promise<(UserGroupRow | null | Error)[]>) {
    const answers: (UserGroupRow | null | Error)[] = [];
    for (const round of inRounds(inputs, keyOf)) {
      const roundAnswers = await change(round.map((position) => inputs[position]!));
      round.forEach((position, i) => (answers[position] = roundAnswers[i]!));
    }
    return answers;
  }

  /**
   * One `batchedStatement` for all the inputs (one array per column of
   * `single`'s parameters); `positionOf` tells which input a returned row
   * answers. Inputs without a row get null.
   */
  private async batched<Row extends UserGroupRow>(
    batchedStatement: StatementName,
    single: StatementName,
    rowsOfValues: unknown[][],
    positionOf: (row: Row) => number | undefined,
  ): Promise<(UserGroupRow | null | Error)[]> {
    const columns = rowsOfValues[0]!.map((_, column) => rowsOfValues.map((values) => values[column]));
    try {
      const { rows } = await this.query<Row>(batchedStatement, columns);
      const answers: (UserGroupRow | null)[] = rowsOfValues.map(() => null);
      for (const row of rows) answers[positionOf(row)!] = row;
      return answers;
    } catch (error) {
      // The database is out of reach: every input fails alike. Anything else may be one input's
      // fault, so each is tried alone and only that one fails.
      if (rowsOfValues.length === 1 || (error instanceof ServiceError && error.code === 'unavailable')) return rowsOfValues.map(() => error as Error);
      return Promise.all(
        rowsOfValues.map((values) => this.query<UserGroupRow>(single, values).then(({ rows }) => rows[0] ?? null, (failure: unknown) => failure as Error)),
      );
    }
  }

  /** The group (or null) for each key, in order; `keyOf` gives a row's key. */
  private async findGroups<K extends string | Buffer>(
    statement: 'findGroups' | 'findGroupsByToken',
    keys: readonly (readonly [Environment, K])[],
    keyOf: (row: UserGroupRow) => readonly [string, K],
  ): Promise<(UserGroupRecord | null)[]> {
    const { rows } = await this.query<UserGroupRow>(statement, [keys.map(([environment]) => environment), keys.map(([, key]) => key)]);
    const joined = (environment: string, key: K) => `${environment}\u0000${typeof key === 'string' ? key : key.toString('hex')}`;
    const found = new Map(rows.map((row) => [joined(...keyOf(row)), row]));
    return keys.map(([environment, key]) => {
      const row = found.get(joined(environment, key));
      return row ? toUserGroupRecord(row) : null;
    });
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
      const revocations = new RevocationListener({ connectionString: options.connectionString, connectTimeoutMs: options.connectTimeoutMs });
      return { store: new PostgresStore(pool, options.retry ?? { attempts: 3, baseDelayMs: 25 }, revocations), appliedMigrations };
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private async query<Row extends pg.QueryResultRow>(name: StatementName, values: unknown[], idempotent = true): Promise<pg.QueryResult<Row>> {
    return withRetry(() => this.pool.query<Row>({ name: `ugs_${name}`, text: SQL[name], values }), idempotent, this.retry).catch((error: unknown) => {
      throw asUnavailable(error);
    });
  }

  async ping(): Promise<void> {
    await this.pool.query(SQL.ping);
  }

  async close(): Promise<void> {
    await this.revocations.close();
    if (!this.pool.ended) await this.pool.end();
  }

  async getSetting(name: string): Promise<string | null> {
    return (await this.query<{ value: string }>('getSetting', [name])).rows[0]?.value ?? null;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    await this.query('putSettingIfAbsent', [name, value]);
    return (await this.getSetting(name))!;
  }

  async replaceSetting(name: string, expected: string, value: string): Promise<boolean> {
    return ((await this.query('replaceSetting', [value, name, expected])).rowCount ?? 0) > 0;
  }

  async putSetting(name: string, value: string): Promise<void> {
    await this.query('putSetting', [name, value]);
  }

  async listSettings(prefix: string): Promise<{ name: string; value: string }[]> {
    return (await this.query<{ name: string; value: string }>('listSettings', [prefix])).rows;
  }

  async deleteSetting(name: string): Promise<void> {
    await this.query('deleteSetting', [name]);
  }

  async replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean> {
    return ((await this.query('replaceCiphertext', [next, teamId, expected])).rowCount ?? 0) > 0;
  }

  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null> {
    return this.groupById([environment, providedId]);
  }

  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null> {
    return this.groupByTokenHash([environment, tokenHash]);
  }

  async insertUserGroupIfAbsent(group: NewUserGroup, audit: AuditContext = NO_AUDIT_DETAIL): Promise<{ group: UserGroupRecord; created: boolean }> {
    const inserted = await this.insertedGroup({ group, audit });
    if (inserted) return { group: toUserGroupRecord(inserted), created: true };
    // ON CONFLICT waited for the competing insert to commit, so the row is visible now.
    const existing = await this.findUserGroup(group.environment, group.providedId);
    if (!existing) throw new Error('user group vanished between conflict and read');
    return { group: existing, created: false };
  }

  async updateUserGroup(
    environment: Environment,
    providedId: string,
    changes: UserGroupChanges,
    audit: AuditContext = NO_AUDIT_DETAIL,
  ): Promise<UserGroupRecord | null> {
    const row = await this.updatedGroup({ environment, providedId, changes, audit });
    return row ? toUserGroupRecord(row) : null;
  }

  async replaceToken(replacement: TokenReplacement, audit: AuditContext = NO_AUDIT_DETAIL): Promise<UserGroupRecord | null> {
    const row = await this.replacedToken({ replacement, audit });
    return row ? toUserGroupRecord(row) : null;
  }

  async listUserGroups(environment: Environment, page: { beforeTeamId: number; limit: number; prefix?: string }): Promise<UserGroupRecord[]> {
    const rows = (await this.query<UserGroupRow>('listGroups', [environment, page.beforeTeamId, page.prefix ?? null, page.limit])).rows;
    return rows.map(toUserGroupRecord);
  }

  async countUserGroups(): Promise<Record<Environment, number>> {
    const counts: Record<Environment, number> = { Customer: 0, Testing: 0 };
    for (const row of (await this.query<{ environment: Environment; n: number }>('countGroups', [])).rows) counts[row.environment] = row.n;
    return counts;
  }

  async deleteUserGroup(
    environment: Environment,
    providedId: string,
    deletedAt: string,
    audit: AuditContext = NO_AUDIT_DETAIL,
  ): Promise<UserGroupRecord | null> {
    const row = (await this.query<UserGroupRow>('deleteGroup', [environment, providedId, deletedAt, ...auditValues(audit)])).rows[0];
    return row ? toUserGroupRecord(row) : null;
  }

  async listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return (await this.query<UserGroupRow>('listGroupsAfter', [afterTeamId, limit])).rows.map(toUserGroupRecord);
  }

  async isEmpty(): Promise<boolean> {
    return !(await this.query<{ any: boolean }>('anyRow', [])).rows[0]?.any;
  }

  async importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw asUnavailable(error);
    });
    try {
      await client.query('BEGIN');
      for (const [name, value] of Object.entries(settings)) await client.query({ name: 'ugs_putSettingIfAbsent', text: SQL.putSettingIfAbsent, values: [name, value] });
      for await (const batch of batches) {
        for (const g of batch.userGroups) {
          await client.query({
            name: 'ugs_importGroup',
            text: SQL.importGroup,
            values: [g.teamId, ...newGroupColumns(g)],
          });
        }
        for (const k of batch.apiKeys) await client.query({ name: 'ugs_importKey', text: SQL.importKey, values: apiKeyValues(k) });
        for (const a of batch.auditRecords) {
          await client.query({
            name: 'ugs_importAudit',
            text: SQL.importAudit,
            values: [a.id, a.at, a.action, a.environment, a.teamId, a.providedId, a.keyId, JSON.stringify(a.fields), a.clientAddress],
          });
        }
      }
      await client.query(SQL.advanceTeamIds);
      await client.query(SQL.advanceAuditIds);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async insertApiKey(key: ApiKeyRecord, audit: AuditContext = NO_AUDIT_DETAIL): Promise<void> {
    await this.query('insertKey', [...apiKeyValues(key), JSON.stringify(audit.fields), audit.clientAddress ?? null]);
  }

  async findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    const row = (await this.query<ApiKeyRow>('findKeyByHash', [keyHash])).rows[0];
    return row ? toApiKeyRecord(row) : null;
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    return (await this.query<ApiKeyRow>('listKeys', [])).rows.map(toApiKeyRecord);
  }

  async revokeApiKey(id: string, revokedAt: string, audit: AuditContext = NO_AUDIT_DETAIL): Promise<boolean> {
    return (await this.query<{ exists: boolean }>('revokeKey', [revokedAt, id, JSON.stringify(audit.fields), audit.clientAddress ?? null])).rows[0]?.exists ?? false;
  }

  async recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    await this.query('recordKeyUse', [usedAt, id]);
  }

  keyRevocations(): RevocationListener {
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

  async listAuditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    if (query.group && 'teamId' in query.group) where.push(`team_id = $${values.push(query.group.teamId)}`);
    else if (query.group) where.push(`provided_id = $${values.push(query.group.providedId)}`);
    if (query.since) where.push(`at >= $${values.push(query.since)}`);
    const text = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT $${values.push(query.limit)}`;
    const result = await withRetry(() => this.pool.query<AuditRow>(text, values), true, this.retry).catch((error: unknown) => {
      throw asUnavailable(error);
    });
    return result.rows.map(toAuditRecord);
  }

  async listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    return (await this.query<AuditRow>('listAuditAfter', [afterId, limit])).rows.map(toAuditRecord);
  }
}
