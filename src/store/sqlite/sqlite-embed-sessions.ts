import type Database from 'better-sqlite3';
import type { EmbedSessionRecord } from '../../embed-sessions/embed-session.js';
import type { EmbedRevocation } from '../../consequences/embed-revocation.js';
import type { ViewerActivity, ViewerPosition } from '../../viewers/viewer.js';
import type { EmbedSessionStore } from '../../embed-sessions/embed-session-store.js';
import type { SessionActivityBatch, SessionActivityCount } from '../../embed-sessions/session-activity.js';
import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { GroupCommit } from './group-commit.js';
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
import type { SqliteConsequences } from './sqlite-consequences.js';
import type { SqliteHealth } from './sqlite-health.js';

/** Expired rows forgotten per write (a revocation, an activity flush): more than any revocation rate, and cheap. */
export const PRUNE_PER_WRITE = 100;
/**
 * Counted hours past the retention forgotten per flush, per table: a flush every
 * few seconds per process removes far more than a busy deployment adds.
 */
export const USAGE_FORGOTTEN_PER_WRITE = 1000;
/** How long an applied activity batch's id is kept: far longer than a batch is ever retried. */
const BATCH_ID_KEPT_MS = 86_400_000;

/** Embed sessions and their revocation feed on SQLite; writes share the store's group commit. */
export class SqliteEmbedSessions implements EmbedSessionStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly groupCommit: GroupCommit,
    private readonly health: SqliteHealth,
    private readonly appender: SqliteConsequences,
  ) {
    this.statements = {
      // Stored revoked; a session stored unrevoked (minted before ids checked themselves) gets its revoked_at;
      // one revoked already is left as it is.
      revoke: db.prepare(
        `INSERT INTO embed_sessions (session_id, environment, team_id, provided_id, token_version, created_at, expires_at, revoked_at)
         VALUES (@sessionId, @environment, @teamId, @providedId, @tokenVersion, @createdAt, @expiresAt, @revokedAt)
         ON CONFLICT (session_id) DO UPDATE SET revoked_at = excluded.revoked_at
           WHERE embed_sessions.revoked_at IS NULL AND embed_sessions.environment = excluded.environment`,
      ),
      find: db.prepare<[string, string], EmbedSessionRow>('SELECT * FROM embed_sessions WHERE environment = ? AND session_id = ?'),
      batchApplied: db.prepare('INSERT INTO session_activity_batches (batch_id, applied_at) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      addActivity: db.prepare(
        `INSERT INTO session_activity (environment, team_id, hour_start, minted, renewed, last_minted_at)
         VALUES (@environment, @teamId, @hourStart, @minted, @renewed, @lastMintedAt)
         ON CONFLICT (environment, team_id, hour_start) DO UPDATE SET
           minted = minted + excluded.minted,
           renewed = renewed + excluded.renewed,
           last_minted_at = CASE WHEN excluded.last_minted_at > last_minted_at OR last_minted_at IS NULL
                            THEN excluded.last_minted_at ELSE last_minted_at END`,
      ),
      addViewerHour: db.prepare(
        `INSERT INTO viewer_hours (environment, team_id, hour_start, viewer_id) VALUES (@environment, @teamId, @hourStart, @viewerId)
         ON CONFLICT DO NOTHING`,
      ),
      forgetCounts: db.prepare<[string, number]>(
        `DELETE FROM session_activity WHERE (environment, team_id, hour_start) IN (
           SELECT environment, team_id, hour_start FROM session_activity WHERE hour_start < ? LIMIT ?)`,
      ),
      forgetViewerHours: db.prepare<[string, number]>(
        `DELETE FROM viewer_hours WHERE (environment, team_id, hour_start, viewer_id) IN (
           SELECT environment, team_id, hour_start, viewer_id FROM viewer_hours WHERE hour_start < ? LIMIT ?)`,
      ),
      addViewer: db.prepare(
        `INSERT INTO viewer_activity (environment, team_id, viewer_id, first_seen_at, last_seen_at, sessions)
         VALUES (@environment, @teamId, @viewerId, @firstSeenAt, @lastSeenAt, @sessions)
         ON CONFLICT (environment, team_id, viewer_id) DO UPDATE SET
           first_seen_at = min(first_seen_at, excluded.first_seen_at),
           last_seen_at = max(last_seen_at, excluded.last_seen_at),
           sessions = sessions + excluded.sessions`,
      ),
      listViewers: db.prepare<[string, number, string, string, string, number], ViewerActivityRow>(
        `SELECT * FROM viewer_activity WHERE environment = ? AND team_id = ?
           AND (last_seen_at < ? OR (last_seen_at = ? AND viewer_id > ?))
         ORDER BY last_seen_at DESC, viewer_id LIMIT ?`,
      ),
      latestViewerRevocation: db.prepare<[string, string, string], { revoked_at: string | null }>(
        'SELECT max(revoked_at) AS revoked_at FROM embed_revocations WHERE environment = ? AND viewer_id = ? AND expires_at > ?',
      ),
      listActivity: db.prepare<[string, number, string, string], SessionActivityRow>(
        `SELECT * FROM session_activity WHERE environment = ? AND team_id = ? AND hour_start >= ? AND hour_start < ? ORDER BY hour_start`,
      ),
      pruneBatches: db.prepare<[string, number]>(
        'DELETE FROM session_activity_batches WHERE batch_id IN (SELECT batch_id FROM session_activity_batches WHERE applied_at < ? LIMIT ?)',
      ),
      list: db.prepare<[string, number, string, number], EmbedRevocationRow>(
        'SELECT * FROM embed_revocations WHERE environment = ? AND sequence > ? AND expires_at > ? ORDER BY sequence LIMIT ?',
      ),
      pruneSessions: db.prepare<[string, number]>(
        'DELETE FROM embed_sessions WHERE session_id IN (SELECT session_id FROM embed_sessions WHERE expires_at < ? LIMIT ?)',
      ),
      pruneRevocations: db.prepare<[string, number]>(
        'DELETE FROM embed_revocations WHERE sequence IN (SELECT sequence FROM embed_revocations WHERE expires_at < ? LIMIT ?)',
      ),
    };
  }

  async addSessionActivity(batch: SessionActivityBatch, now: string, forgetBefore?: string): Promise<void> {
    await this.groupCommit.run(() => {
      if (this.statements.batchApplied.run(batch.batchId, now).changes > 0) {
        for (const count of batch.counts) this.statements.addActivity.run(count);
        for (const viewer of batch.viewers) this.statements.addViewer.run(viewer);
        for (const hour of batch.viewerHours) this.statements.addViewerHour.run(hour);
      }
      this.statements.pruneBatches.run(new Date(Date.parse(now) - BATCH_ID_KEPT_MS).toISOString(), PRUNE_PER_WRITE);
      this.pruneExpired(now);
      if (forgetBefore !== undefined) {
        this.statements.forgetCounts.run(forgetBefore, USAGE_FORGOTTEN_PER_WRITE);
        this.statements.forgetViewerHours.run(forgetBefore, USAGE_FORGOTTEN_PER_WRITE);
      }
    });
  }

  async listSessionActivity(environment: Environment, teamId: number, fromHour: string, toHour: string): Promise<SessionActivityCount[]> {
    this.health.assertUsable();
    return this.statements.listActivity.all(environment, teamId, fromHour, toHour).map(toSessionActivity);
  }

  async revokeViewerSessions(revokedAt: string, consequences: WriteConsequences): Promise<void> {
    await this.groupCommit.run(() => {
      this.pruneExpired(revokedAt);
      this.appender.persist(consequences);
    });
  }

  async latestViewerRevocation(environment: Environment, viewerId: string, now: string): Promise<string | null> {
    this.health.assertUsable();
    return this.statements.latestViewerRevocation.get(environment, viewerId, now)?.revoked_at ?? null;
  }

  async listViewers(environment: Environment, teamId: number, after: ViewerPosition | null, limit: number): Promise<ViewerActivity[]> {
    this.health.assertUsable();
    // After the first page's start: later than any time, so every row is "before" it.
    const { lastSeenAt, viewerId } = after ?? { lastSeenAt: '9999-12-31T23:59:59.999Z', viewerId: '' };
    return this.statements.listViewers.all(environment, teamId, lastSeenAt, lastSeenAt, viewerId, limit).map(toViewerActivity);
  }

  private pruneExpired(now: string): void {
    this.statements.pruneSessions.run(now, PRUNE_PER_WRITE);
    this.statements.pruneRevocations.run(now, PRUNE_PER_WRITE);
  }

  async findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    this.health.assertUsable();
    const row = this.statements.find.get(environment, sessionId);
    return row ? toEmbedSession(row) : null;
  }

  async revokeEmbedSession(session: EmbedSessionRecord, revokedAt: string, consequences: WriteConsequences): Promise<boolean> {
    return this.groupCommit.run(() => {
      this.pruneExpired(revokedAt);
      const revoked = this.statements.revoke.run({ ...session, revokedAt }).changes > 0;
      if (revoked) this.appender.persist(consequences);
      return revoked;
    });
  }

  async listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]> {
    this.health.assertUsable();
    return this.statements.list.all(environment, afterSequence, now, limit).map(toEmbedRevocation);
  }
}
