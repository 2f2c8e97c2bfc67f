import { toConsoleSessionRecord, type ConsoleSessionRow } from '../rows.js';
import type Database from 'better-sqlite3';
import type { ConsoleSessionRecord } from '../../console/console-session.js';
import type { ConsoleSessionStore } from '../../console/console-session-store.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteHealth } from './sqlite-health.js';

/** Stale sessions forgotten per sign-in: enough to outpace any sign-in rate, small enough to cost nothing. */
const PRUNE_PER_WRITE = 10;

/** Console sessions on SQLite; writes share the store's group commit. */
export class SqliteConsoleSessions implements ConsoleSessionStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly groupCommit: GroupCommit,
    private readonly health: SqliteHealth,
  ) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO console_sessions (id_hash, key_id, environment, access, created_at, last_seen_at)
         VALUES (@idHash, @keyId, @environment, @access, @createdAt, @lastSeenAt)`,
      ),
      prune: db.prepare<[string, string, number]>(
        'DELETE FROM console_sessions WHERE id_hash IN (SELECT id_hash FROM console_sessions WHERE last_seen_at < ? OR created_at < ? LIMIT ?)',
      ),
      // A revoked or deleted key ends its sessions at once: the lookup every page makes asks for the key too.
      find: db.prepare<[Buffer], ConsoleSessionRow>(
        `SELECT s.* FROM console_sessions s JOIN api_keys k ON k.id = s.key_id
         WHERE s.id_hash = ? AND k.revoked_at IS NULL`,
      ),
      touch: db.prepare<[string, Buffer, string]>('UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ? AND last_seen_at < ?'),
      delete: db.prepare<[Buffer]>('DELETE FROM console_sessions WHERE id_hash = ?'),
    };
  }

  async insertConsoleSession(session: ConsoleSessionRecord, staleBefore: { lastSeen: string; created: string }): Promise<void> {
    await this.groupCommit.run(() => {
      this.statements.prune.run(staleBefore.lastSeen, staleBefore.created, PRUNE_PER_WRITE);
      this.statements.insert.run(session);
    });
  }

  async findConsoleSession(idHash: Buffer): Promise<ConsoleSessionRecord | null> {
    this.health.assertUsable();
    const row = this.statements.find.get(idHash);
    return row ? toConsoleSessionRecord(row) : null;
  }

  async touchConsoleSession(idHash: Buffer, lastSeenAt: string): Promise<void> {
    await this.groupCommit.run(() => this.statements.touch.run(lastSeenAt, idHash, lastSeenAt));
  }

  async deleteConsoleSession(idHash: Buffer): Promise<boolean> {
    return this.groupCommit.run(() => this.statements.delete.run(idHash).changes > 0);
  }
}
