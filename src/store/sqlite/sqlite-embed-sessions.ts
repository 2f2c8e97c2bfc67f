import type Database from 'better-sqlite3';
import type { AuditContext } from '../../audit/audit.js';
import type { EmbedRevocation, EmbedSessionRecord, RevocationReason } from '../../embed-sessions/embed-session.js';
import { sessionRevoked } from '../../embed-sessions/embed-session-consequences.js';
import type { EmbedSessionStore } from '../../embed-sessions/embed-session-store.js';
import type { SessionActivityBatch, SessionActivityCount } from '../../embed-sessions/session-activity.js';
import type { Environment } from '../../kernel/environment.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import type { SqliteHealth } from './sqlite-health.js';

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

interface ActivityRow {
  environment: string;
  team_id: number;
  hour_start: string;
  minted: number;
}

/** Expired rows forgotten per write (a revocation, an activity flush): more than any revocation rate, and cheap. */
export const PRUNE_PER_WRITE = 100;
/** How long an applied activity batch's id is kept: far longer than a batch is ever retried. */
const BATCH_ID_KEPT_MS = 86_400_000;

/** Embed sessions and their revocation feed on SQLite; writes share the store's group commit. */
export class SqliteEmbedSessions implements EmbedSessionStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly groupCommit: GroupCommit,
    private readonly health: SqliteHealth,
    private readonly consequences: SqliteConsequences,
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
      find: db.prepare<[string, string], SessionRow>('SELECT * FROM embed_sessions WHERE environment = ? AND session_id = ?'),
      batchApplied: db.prepare('INSERT INTO session_activity_batches (batch_id, applied_at) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      addActivity: db.prepare(
        `INSERT INTO session_activity (environment, team_id, hour_start, minted) VALUES (@environment, @teamId, @hourStart, @minted)
         ON CONFLICT (environment, team_id, hour_start) DO UPDATE SET minted = minted + excluded.minted`,
      ),
      listActivity: db.prepare<[string, number, string, string], ActivityRow>(
        `SELECT * FROM session_activity WHERE environment = ? AND team_id = ? AND hour_start >= ? AND hour_start < ? ORDER BY hour_start`,
      ),
      pruneBatches: db.prepare<[string, number]>(
        'DELETE FROM session_activity_batches WHERE batch_id IN (SELECT batch_id FROM session_activity_batches WHERE applied_at < ? LIMIT ?)',
      ),
      list: db.prepare<[string, number, string, number], RevocationRow>(
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

  async addSessionActivity(batch: SessionActivityBatch, now: string): Promise<void> {
    await this.groupCommit.run(() => {
      if (this.statements.batchApplied.run(batch.batchId, now).changes > 0) {
        for (const count of batch.counts) this.statements.addActivity.run(count);
      }
      this.statements.pruneBatches.run(new Date(Date.parse(now) - BATCH_ID_KEPT_MS).toISOString(), PRUNE_PER_WRITE);
      this.pruneExpired(now);
    });
  }

  async listSessionActivity(environment: Environment, teamId: number, fromHour: string, toHour: string): Promise<SessionActivityCount[]> {
    this.health.assertUsable();
    return this.statements.listActivity.all(environment, teamId, fromHour, toHour).map((row) => ({
      environment: row.environment as Environment,
      teamId: row.team_id,
      hourStart: row.hour_start,
      minted: row.minted,
    }));
  }

  private pruneExpired(now: string): void {
    this.statements.pruneSessions.run(now, PRUNE_PER_WRITE);
    this.statements.pruneRevocations.run(now, PRUNE_PER_WRITE);
  }

  async findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    this.health.assertUsable();
    const row = this.statements.find.get(environment, sessionId);
    return row ? toSession(row) : null;
  }

  async revokeEmbedSession(session: EmbedSessionRecord, revokedAt: string, audit: AuditContext): Promise<boolean> {
    return this.groupCommit.run(() => {
      this.pruneExpired(revokedAt);
      const revoked = this.statements.revoke.run({ ...session, revokedAt }).changes > 0;
      if (revoked) this.consequences.persist(sessionRevoked(session, revokedAt, audit));
      return revoked;
    });
  }

  async listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]> {
    this.health.assertUsable();
    return this.statements.list.all(environment, afterSequence, now, limit).map(toRevocation);
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
