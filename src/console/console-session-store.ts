import type { ConsoleSessionRecord } from './console-session.js';

/**
 * The storage ConsoleSessionService needs: a port, implemented in src/store
 * for each database and held to it by the store conformance suite. Sessions
 * live in the store, not in a process, so every worker and replica sees them.
 */
export interface ConsoleSessionStore {
  /**
   * Records a new session; also forgets a few sessions last seen before
   * `staleBefore.lastSeen` or created before `staleBefore.created`, so the
   * table does not grow without bound.
   */
  insertConsoleSession(session: ConsoleSessionRecord, staleBefore: { lastSeen: string; created: string }): Promise<void>;
  /** The session with this id hash; null when there is none or its API key has been revoked (or is gone). */
  findConsoleSession(idHash: Buffer): Promise<ConsoleSessionRecord | null>;
  /** Moves the session's last_seen_at forward (never back); nothing when it is gone. */
  touchConsoleSession(idHash: Buffer, lastSeenAt: string): Promise<void>;
  /** Ends the session; false when there was none. */
  deleteConsoleSession(idHash: Buffer): Promise<boolean>;
}
