import type { ConsoleSessionRecord } from '../../console/console-session.js';
import type { ConsoleSessionStore } from '../../console/console-session-store.js';
import { toConsoleSessionRecord, type ConsoleSessionRow } from '../rows.js';
import { run, type SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

/** Stale sessions forgotten per sign-in: enough to outpace any sign-in rate, small enough to cost nothing. */
const PRUNE_PER_WRITE = 10;

const INSERT = `INSERT INTO console_sessions (id_hash, key_id, environment, access, created_at, last_seen_at)
                VALUES (@idHash, @keyId, @environment, @access, @createdAt, @lastSeenAt) ON CONFLICT (id_hash) DO NOTHING`;
const STALE = 'SELECT id_hash FROM console_sessions WHERE last_seen_at < @lastSeen OR created_at < @created';

/**
 * A sign-in: the session, and on PostgreSQL a few stale ones forgotten in the
 * same statement, in autocommit (a retry repeats it harmlessly: ON CONFLICT).
 * SQLite deletes in no CTE: there SQLITE_PRUNE runs first, in the same transaction.
 */
const SIGN_IN = statement('insertConsoleSession', {
  sqlite: INSERT,
  postgres: `WITH inserted AS (${INSERT}), pruned AS (
               DELETE FROM console_sessions WHERE id_hash IN (${STALE} LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
             )
             SELECT 1`,
});
const SQLITE_PRUNE = statement('pruneConsoleSessions', `DELETE FROM console_sessions WHERE id_hash IN (${STALE} LIMIT ${PRUNE_PER_WRITE})`);
// A revoked or deleted key ends its sessions at once: the lookup every page makes asks for the key too.
const FIND = statement<ConsoleSessionRow>(
  'findConsoleSession',
  `SELECT s.* FROM console_sessions s JOIN api_keys k ON k.id = s.key_id
   WHERE s.id_hash = @idHash AND k.revoked_at IS NULL`,
);
const TOUCH = statement(
  'touchConsoleSession',
  'UPDATE console_sessions SET last_seen_at = @lastSeenAt WHERE id_hash = @idHash AND last_seen_at < @lastSeenAt',
);
const DELETE = statement<{ id_hash: Buffer }>(
  'deleteConsoleSession',
  'DELETE FROM console_sessions WHERE id_hash = @idHash RETURNING id_hash',
);

/** Console sessions: in the store, so every worker and replica sees them at once. */
export class SqlConsoleSessions implements ConsoleSessionStore {
  constructor(private readonly db: SqlDatabase) {}

  async insertConsoleSession(session: ConsoleSessionRecord, staleBefore: { lastSeen: string; created: string }): Promise<void> {
    const parameters = { ...session, lastSeen: staleBefore.lastSeen, created: staleBefore.created };
    if (this.db.dialect === 'postgres') await this.db.write(SIGN_IN, parameters);
    else
      await this.db.transaction(function* () {
        yield* run(SQLITE_PRUNE, parameters);
        yield* run(SIGN_IN, parameters);
      });
  }

  async findConsoleSession(idHash: Buffer): Promise<ConsoleSessionRecord | null> {
    const row = await this.db.first(FIND, { idHash });
    return row ? toConsoleSessionRecord(row) : null;
  }

  async touchConsoleSession(idHash: Buffer, lastSeenAt: string): Promise<void> {
    await this.db.write(TOUCH, { idHash, lastSeenAt });
  }

  async deleteConsoleSession(idHash: Buffer): Promise<boolean> {
    return (await this.db.write(DELETE, { idHash })).length > 0;
  }
}
