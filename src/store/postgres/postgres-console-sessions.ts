import { toConsoleSessionRecord, type ConsoleSessionRow } from '../rows.js';
import type { ConsoleSessionRecord } from '../../console/console-session.js';
import type { ConsoleSessionStore } from '../../console/console-session-store.js';
import type { RunStatement } from './postgres-embed-sessions.js';

/** Stale sessions forgotten per sign-in: enough to outpace any sign-in rate, small enough to cost nothing. */
const PRUNE_PER_WRITE = 10;

const SQL = {
  // One statement: the session, and a few stale ones forgotten. ON CONFLICT makes a retry harmless.
  insertConsoleSession: `WITH inserted AS (
                           INSERT INTO console_sessions (id_hash, key_id, environment, access, created_at, last_seen_at)
                           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id_hash) DO NOTHING
                         ), pruned AS (
                           DELETE FROM console_sessions WHERE id_hash IN (
                             SELECT id_hash FROM console_sessions WHERE last_seen_at < $7 OR created_at < $8 LIMIT ${PRUNE_PER_WRITE} FOR UPDATE SKIP LOCKED)
                         )
                         SELECT 1`,
  // A revoked or deleted key ends its sessions at once: the lookup every page makes asks for the key too.
  findConsoleSession: `SELECT s.* FROM console_sessions s JOIN api_keys k ON k.id = s.key_id
                       WHERE s.id_hash = $1 AND k.revoked_at IS NULL`,
  touchConsoleSession: 'UPDATE console_sessions SET last_seen_at = $2 WHERE id_hash = $1 AND last_seen_at < $2',
  deleteConsoleSession: 'DELETE FROM console_sessions WHERE id_hash = $1',
} as const;

/** Console sessions on PostgreSQL: each call one statement in autocommit, so every replica sees them at once. */
export class PostgresConsoleSessions implements ConsoleSessionStore {
  constructor(private readonly run: RunStatement) {}

  async insertConsoleSession(s: ConsoleSessionRecord, staleBefore: { lastSeen: string; created: string }): Promise<void> {
    await this.run('insertConsoleSession', SQL.insertConsoleSession, [
      s.idHash,
      s.keyId,
      s.environment,
      s.access,
      s.createdAt,
      s.lastSeenAt,
      staleBefore.lastSeen,
      staleBefore.created,
    ]);
  }

  async findConsoleSession(idHash: Buffer): Promise<ConsoleSessionRecord | null> {
    const row = (await this.run<ConsoleSessionRow>('findConsoleSession', SQL.findConsoleSession, [idHash])).rows[0];
    return row ? toConsoleSessionRecord(row) : null;
  }

  async touchConsoleSession(idHash: Buffer, lastSeenAt: string): Promise<void> {
    await this.run('touchConsoleSession', SQL.touchConsoleSession, [idHash, lastSeenAt]);
  }

  async deleteConsoleSession(idHash: Buffer): Promise<boolean> {
    return ((await this.run('deleteConsoleSession', SQL.deleteConsoleSession, [idHash])).rowCount ?? 0) > 0;
  }
}
