import type pg from 'pg';
import { appendConsequences, consequenceParameters } from './postgres-consequences.js';
import { perTurnBatch, type PerTurnBatch } from '../per-turn-batch.js';
import { asColumns, eachAloneOnFailure } from './postgres-write-batches.js';
import type { AuditContext } from '../../audit/audit.js';
import { sessionRevoked } from '../../embed-sessions/embed-session-consequences.js';
import type { EmbedRevocation, EmbedSessionRecord, RevocationReason } from '../../embed-sessions/embed-session.js';
import type { EmbedSessionStore } from '../../embed-sessions/embed-session-store.js';
import type { Environment } from '../../kernel/environment.js';

/** Runs one named statement with the store's retry and error mapping (PostgresQueries.queryText). */
export type RunStatement = <Row extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) => Promise<pg.QueryResult<Row>>;

interface SessionRow {
  session_id: string;
  environment: string;
  team_id: number;
  provided_id: string;
  token_version: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

interface RevocationRow {
  sequence: number;
  environment: string;
  session_id: string | null;
  provided_id: string;
  token_version: string | null;
  reason: string;
  revoked_at: string;
  expires_at: string;
}

/** Expired rows forgotten per mint: enough to outpace any mint rate, small enough to cost nothing. */
const PRUNE_PER_WRITE = 10;

const SQL = {
  // One statement for the sessions minted in one turn (one commit, not one per mint), and a few expired
  // sessions and revocations forgotten. ON CONFLICT makes a retry harmless.
  insertEmbedSessions: `WITH inserted AS (
                          INSERT INTO embed_sessions (session_id, environment, team_id, provided_id, token_version, created_at, expires_at)
                          SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[])
                          ON CONFLICT (session_id) DO NOTHING
                        ), pruned_sessions AS (
                          DELETE FROM embed_sessions WHERE session_id IN (
                            SELECT session_id FROM embed_sessions WHERE expires_at < $8 LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
                        ), pruned_revocations AS (
                          DELETE FROM embed_revocations WHERE sequence IN (
                            SELECT sequence FROM embed_revocations WHERE expires_at < $8 LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
                        )
                        SELECT 1`,
  findEmbedSession: 'SELECT * FROM embed_sessions WHERE environment = $1 AND session_id = $2',
  // Revokes and appends its consequences ($4 to $6: the feed entry, the audit record, the event) together;
  // a session ended already writes nothing. They are built from the session as read before: all but
  // revoked_at, which this statement checks, is fixed when the session is minted.
  revokeEmbedSession: `WITH revoked AS (
                         UPDATE embed_sessions SET revoked_at = $3 WHERE environment = $1 AND session_id = $2 AND revoked_at IS NULL RETURNING *
                       ), written AS (
                         SELECT 1 AS input_n FROM revoked
                       ), ${appendConsequences(4, 'written')}
                       SELECT * FROM revoked
                       UNION ALL
                       SELECT * FROM embed_sessions WHERE environment = $1 AND session_id = $2 AND NOT EXISTS (SELECT 1 FROM revoked)`,
  listEmbedRevocations:
    'SELECT * FROM embed_revocations WHERE environment = $1 AND sequence > $2 AND expires_at > $3 ORDER BY sequence LIMIT $4',
} as const;

/** Embed sessions and their revocation feed on PostgreSQL: each call one statement in autocommit (the inserts of one turn, one statement).
 * */
export class PostgresEmbedSessions implements EmbedSessionStore {
  /** Sessions minted in one turn share one statement and one commit: a commit each made mints wait in line for the WAL's fsync. */
  private readonly insertInBatch: PerTurnBatch<{ session: EmbedSessionRecord; now: string }, void>;

  constructor(private readonly run: RunStatement) {
    this.insertInBatch = perTurnBatch((inputs) =>
      eachAloneOnFailure(inputs, async (batch) => {
        const columns = asColumns(
          batch.map(({ session: s }) => [s.sessionId, s.environment, s.teamId, s.providedId, s.tokenVersion, s.createdAt, s.expiresAt]),
        );
        const now = batch.reduce((latest, input) => (input.now > latest ? input.now : latest), batch[0]!.now);
        await this.run('insertEmbedSessions', SQL.insertEmbedSessions, [...columns, now]);
        return batch.map(() => undefined);
      }),
    );
  }

  insertEmbedSession(session: EmbedSessionRecord, now: string): Promise<void> {
    return this.insertInBatch({ session, now });
  }

  async findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    const row = (await this.run<SessionRow>('findEmbedSession', SQL.findEmbedSession, [environment, sessionId])).rows[0];
    return row ? toSession(row) : null;
  }

  async revokeEmbedSession(
    environment: Environment,
    sessionId: string,
    revokedAt: string,
    audit: AuditContext,
  ): Promise<EmbedSessionRecord | null> {
    const session = await this.findEmbedSession(environment, sessionId);
    if (!session || session.revokedAt !== null) return session;
    const values = [environment, sessionId, revokedAt, ...consequenceParameters([sessionRevoked(session, revokedAt, audit)])];
    const row = (await this.run<SessionRow>('revokeEmbedSession', SQL.revokeEmbedSession, values)).rows[0];
    return row ? toSession(row) : null;
  }

  async listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]> {
    return (
      await this.run<RevocationRow>('listEmbedRevocations', SQL.listEmbedRevocations, [environment, afterSequence, now, limit])
    ).rows.map(toRevocation);
  }
}

function toSession(row: SessionRow): EmbedSessionRecord {
  return {
    sessionId: row.session_id,
    environment: row.environment as Environment,
    teamId: row.team_id,
    providedId: row.provided_id,
    tokenVersion: row.token_version,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function toRevocation(row: RevocationRow): EmbedRevocation {
  return {
    sequence: row.sequence,
    environment: row.environment as Environment,
    sessionId: row.session_id,
    providedId: row.provided_id,
    tokenVersion: row.token_version,
    reason: row.reason as RevocationReason,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
  };
}
