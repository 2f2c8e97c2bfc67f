import type pg from 'pg';
import { appendConsequences, consequenceParameters } from './postgres-consequences.js';
import { asColumns } from './postgres-write-batches.js';
import {
  toEmbedRevocation,
  toEmbedSession,
  toSessionActivity,
  toViewerActivity,
  type EmbedRevocationRow,
  type EmbedSessionRow,
  type SessionActivityRow,
  type ViewerActivityRow,
} from '../rows.js';
import type { ViewerActivity, ViewerPosition } from '../../viewers/viewer.js';
import type { EmbedSessionRecord } from '../../embed-sessions/embed-session.js';
import type { EmbedRevocation } from '../../consequences/embed-revocation.js';
import type { EmbedSessionStore } from '../../embed-sessions/embed-session-store.js';
import type { SessionActivityBatch, SessionActivityCount } from '../../embed-sessions/session-activity.js';
import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';

/** Rows as one array per column, for unnest; an empty batch as empty columns. */
function columnsOf(width: number, rows: unknown[][]): unknown[][] {
  return rows.length === 0 ? Array.from({ length: width }, () => []) : asColumns(rows);
}

/** Runs one named statement with the store's retry and error mapping (PostgresQueries.queryText). */
export type RunStatement = <Row extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) => Promise<pg.QueryResult<Row>>;

/** Expired rows forgotten per write (a revocation, an activity flush): more than any revocation rate, and cheap. */
const PRUNE_PER_WRITE = 100;
/** Counted hours past the retention forgotten per flush, per table: far more than a busy deployment adds in a flush interval. */
const USAGE_FORGOTTEN_PER_WRITE = 1000;

/** A few expired sessions and revocations forgotten, as a CTE of the write that carries it ($1: now). */
const PRUNE_EXPIRED = `pruned_sessions AS (
                         DELETE FROM embed_sessions WHERE session_id IN (
                           SELECT session_id FROM embed_sessions WHERE expires_at < $1 LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
                       ), pruned_revocations AS (
                         DELETE FROM embed_revocations WHERE sequence IN (
                           SELECT sequence FROM embed_revocations WHERE expires_at < $1 LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
                       )`;

const SQL = {
  findEmbedSession: 'SELECT * FROM embed_sessions WHERE environment = $1 AND session_id = $2',
  // Stores the session revoked (a session stored unrevoked, minted before ids checked themselves, gets its
  // revoked_at) and appends its consequences ($10 to $12: the feed entry, the audit record, the event)
  // together, only when it was not revoked before. A retried statement finds it revoked and writes nothing.
  revokeEmbedSession: `WITH ${PRUNE_EXPIRED}, revoked AS (
                         INSERT INTO embed_sessions (session_id, environment, team_id, provided_id, token_version, created_at, expires_at, revoked_at)
                         VALUES ($2, $3, $4, $5, $6, $7, $8, $9)
                         ON CONFLICT (session_id) DO UPDATE SET revoked_at = EXCLUDED.revoked_at
                           WHERE embed_sessions.revoked_at IS NULL AND embed_sessions.environment = EXCLUDED.environment
                         RETURNING 1
                       ), written AS (
                         SELECT 1 AS input_n FROM revoked
                       ), ${appendConsequences(10, 'written')}
                       SELECT count(*)::int AS revoked FROM revoked`,
  listEmbedRevocations:
    'SELECT * FROM embed_revocations WHERE environment = $1 AND sequence > $2 AND expires_at > $3 ORDER BY sequence LIMIT $4',
  // One batch of counts, added once per batch id ($2): a retried statement finds the id and adds nothing.
  // $19: the hours before it are past the retention, a bounded number forgotten (null: none).
  addSessionActivity: `WITH ${PRUNE_EXPIRED}, batch AS (
                         INSERT INTO session_activity_batches (batch_id, applied_at) VALUES ($2, $1) ON CONFLICT DO NOTHING RETURNING 1
                       ), pruned_batches AS (
                         DELETE FROM session_activity_batches WHERE batch_id IN (
                           SELECT batch_id FROM session_activity_batches WHERE applied_at < $1::timestamptz - interval '1 day'
                           LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
                       ), viewers AS (
                         INSERT INTO viewer_activity (environment, team_id, viewer_id, first_seen_at, last_seen_at, sessions)
                         SELECT * FROM unnest($9::text[], $10::bigint[], $11::text[], $12::timestamptz[], $13::timestamptz[], $14::bigint[])
                         WHERE EXISTS (SELECT 1 FROM batch)
                         ON CONFLICT (environment, team_id, viewer_id) DO UPDATE SET
                           first_seen_at = least(viewer_activity.first_seen_at, EXCLUDED.first_seen_at),
                           last_seen_at = greatest(viewer_activity.last_seen_at, EXCLUDED.last_seen_at),
                           sessions = viewer_activity.sessions + EXCLUDED.sessions
                       ), viewer_hours_seen AS (
                         INSERT INTO viewer_hours (environment, team_id, hour_start, viewer_id)
                         SELECT * FROM unnest($15::text[], $16::bigint[], $17::timestamptz[], $18::text[])
                         WHERE EXISTS (SELECT 1 FROM batch)
                         ON CONFLICT DO NOTHING
                       ), forgotten_counts AS (
                         DELETE FROM session_activity WHERE (environment, team_id, hour_start) IN (
                           SELECT environment, team_id, hour_start FROM session_activity WHERE hour_start < $19::timestamptz
                           LIMIT ${USAGE_FORGOTTEN_PER_WRITE} FOR UPDATE SKIP LOCKED)
                       ), forgotten_viewer_hours AS (
                         DELETE FROM viewer_hours WHERE (environment, team_id, hour_start, viewer_id) IN (
                           SELECT environment, team_id, hour_start, viewer_id FROM viewer_hours WHERE hour_start < $19::timestamptz
                           LIMIT ${USAGE_FORGOTTEN_PER_WRITE} FOR UPDATE SKIP LOCKED)
                       )
                       INSERT INTO session_activity (environment, team_id, hour_start, minted, renewed, last_minted_at)
                       SELECT * FROM unnest($3::text[], $4::bigint[], $5::timestamptz[], $6::bigint[], $7::bigint[], $8::timestamptz[])
                       WHERE EXISTS (SELECT 1 FROM batch)
                       ON CONFLICT (environment, team_id, hour_start) DO UPDATE SET
                         minted = session_activity.minted + EXCLUDED.minted,
                         renewed = session_activity.renewed + EXCLUDED.renewed,
                         last_minted_at = greatest(session_activity.last_minted_at, EXCLUDED.last_minted_at)`,
  // A viewer's revocation is its consequences alone ($2 to $4), with a few expired rows forgotten.
  revokeViewerSessions: `WITH ${PRUNE_EXPIRED}, ${appendConsequences(2)} SELECT 1`,
  latestViewerRevocation: `SELECT max(revoked_at) AS revoked_at FROM embed_revocations
                           WHERE environment = $1 AND viewer_id = $2 AND expires_at > $3`,
  listViewers: `SELECT * FROM viewer_activity WHERE environment = $1 AND team_id = $2
                  AND (last_seen_at < $3 OR (last_seen_at = $3 AND viewer_id > $4))
                ORDER BY last_seen_at DESC, viewer_id LIMIT $5`,
  listSessionActivity: `SELECT * FROM session_activity WHERE environment = $1 AND team_id = $2 AND hour_start >= $3 AND hour_start < $4
                        ORDER BY hour_start`,
} as const;

/**
 * Embed sessions ended early, their revocation feed, and the counted activity
 * on PostgreSQL: each call one statement in autocommit. Every write is safe to
 * retry after a lost connection (its answer lost, not its effect).
 */
export class PostgresEmbedSessions implements EmbedSessionStore {
  constructor(private readonly run: RunStatement) {}

  async findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    const row = (await this.run<EmbedSessionRow>('findEmbedSession', SQL.findEmbedSession, [environment, sessionId])).rows[0];
    return row ? toEmbedSession(row) : null;
  }

  async revokeEmbedSession(session: EmbedSessionRecord, revokedAt: string, consequences: WriteConsequences): Promise<boolean> {
    const s = session;
    const values = [
      revokedAt,
      s.sessionId,
      s.environment,
      s.teamId,
      s.providedId,
      s.tokenVersion,
      s.createdAt,
      s.expiresAt,
      revokedAt,
      ...consequenceParameters([consequences]),
    ];
    const row = (await this.run<{ revoked: number }>('revokeEmbedSession', SQL.revokeEmbedSession, values)).rows[0];
    return (row?.revoked ?? 0) > 0;
  }

  async listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]> {
    return (
      await this.run<EmbedRevocationRow>('listEmbedRevocations', SQL.listEmbedRevocations, [environment, afterSequence, now, limit])
    ).rows.map(toEmbedRevocation);
  }

  async addSessionActivity(batch: SessionActivityBatch, now: string, forgetBefore?: string): Promise<void> {
    const columns = columnsOf(
      6,
      batch.counts.map((c) => [c.environment, c.teamId, c.hourStart, c.minted, c.renewed, c.lastMintedAt]),
    );
    const viewers = columnsOf(
      6,
      batch.viewers.map((v) => [v.environment, v.teamId, v.viewerId, v.firstSeenAt, v.lastSeenAt, v.sessions]),
    );
    const viewerHours = columnsOf(
      4,
      batch.viewerHours.map((h) => [h.environment, h.teamId, h.hourStart, h.viewerId]),
    );
    await this.run('addSessionActivity', SQL.addSessionActivity, [
      now,
      batch.batchId,
      ...columns,
      ...viewers,
      ...viewerHours,
      forgetBefore ?? null,
    ]);
  }

  async revokeViewerSessions(revokedAt: string, consequences: WriteConsequences): Promise<void> {
    await this.run('revokeViewerSessions', SQL.revokeViewerSessions, [revokedAt, ...consequenceParameters([consequences])]);
  }

  async latestViewerRevocation(environment: Environment, viewerId: string, now: string): Promise<string | null> {
    const { rows } = await this.run<{ revoked_at: string | null }>('latestViewerRevocation', SQL.latestViewerRevocation, [
      environment,
      viewerId,
      now,
    ]);
    return rows[0]?.revoked_at ?? null;
  }

  async listViewers(environment: Environment, teamId: number, after: ViewerPosition | null, limit: number): Promise<ViewerActivity[]> {
    // Before the first page: later than any time, so every row comes after it.
    const { lastSeenAt, viewerId } = after ?? { lastSeenAt: '9999-12-31T23:59:59.999Z', viewerId: '' };
    const { rows } = await this.run<ViewerActivityRow>('listViewers', SQL.listViewers, [environment, teamId, lastSeenAt, viewerId, limit]);
    return rows.map(toViewerActivity);
  }

  async listSessionActivity(environment: Environment, teamId: number, fromHour: string, toHour: string): Promise<SessionActivityCount[]> {
    const { rows } = await this.run<SessionActivityRow>('listSessionActivity', SQL.listSessionActivity, [
      environment,
      teamId,
      fromHour,
      toHour,
    ]);
    return rows.map(toSessionActivity);
  }
}
