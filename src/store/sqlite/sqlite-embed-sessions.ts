import type Database from 'better-sqlite3';
import type { AuditContext } from '../../audit/audit.js';
import type { EmbedRevocation, EmbedSessionRecord, RevocationReason } from '../../embed-sessions/embed-session.js';
import { sessionRevoked } from '../../embed-sessions/embed-session-consequences.js';
import type { EmbedSessionStore } from '../../embed-sessions/embed-session-store.js';
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

/** Expired rows forgotten per mint: enough to outpace any mint rate, small enough to cost nothing. */
const PRUNE_PER_WRITE = 10;

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
      insert: db.prepare(
        `INSERT INTO embed_sessions (session_id, environment, team_id, provided_id, token_version, created_at, expires_at, revoked_at)
         VALUES (@sessionId, @environment, @teamId, @providedId, @tokenVersion, @createdAt, @expiresAt, @revokedAt)`,
      ),
      find: db.prepare<[string, string], SessionRow>('SELECT * FROM embed_sessions WHERE environment = ? AND session_id = ?'),
      revoke: db.prepare<[string, string, string], SessionRow>(
        'UPDATE embed_sessions SET revoked_at = ? WHERE environment = ? AND session_id = ? AND revoked_at IS NULL RETURNING *',
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

  async insertEmbedSession(session: EmbedSessionRecord, now: string): Promise<void> {
    await this.groupCommit.run(() => {
      this.statements.insert.run(session);
      this.statements.pruneSessions.run(now, PRUNE_PER_WRITE);
      this.statements.pruneRevocations.run(now, PRUNE_PER_WRITE);
    });
  }

  async findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null> {
    this.health.assertUsable();
    const row = this.statements.find.get(environment, sessionId);
    return row ? toSession(row) : null;
  }

  async revokeEmbedSession(
    environment: Environment,
    sessionId: string,
    revokedAt: string,
    audit: AuditContext,
  ): Promise<EmbedSessionRecord | null> {
    return this.groupCommit.run(() => {
      const row = this.statements.revoke.get(revokedAt, environment, sessionId);
      if (row) {
        const session = toSession(row);
        this.consequences.persist(sessionRevoked(session, revokedAt, audit));
        return session;
      }
      const existing = this.statements.find.get(environment, sessionId);
      return existing ? toSession(existing) : null;
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
