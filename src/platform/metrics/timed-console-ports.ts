import type { ConsoleSessionRecord } from '../../console/console-session.js';
import type { ConsoleSessionStore } from '../../console/console-session-store.js';
import type { StoreTiming } from './store-timing.js';

/** The console session port, timed as timed-ports.ts times the others. */
export class TimedConsoleSessionStore implements ConsoleSessionStore {
  constructor(
    private readonly inner: ConsoleSessionStore,
    private readonly timing: StoreTiming,
  ) {}

  insertConsoleSession(session: ConsoleSessionRecord, staleBefore: { lastSeen: string; created: string }): Promise<void> {
    return this.timing.time('insertConsoleSession', () => this.inner.insertConsoleSession(session, staleBefore));
  }
  findConsoleSession(idHash: Buffer): Promise<ConsoleSessionRecord | null> {
    return this.timing.time('findConsoleSession', () => this.inner.findConsoleSession(idHash));
  }
  touchConsoleSession(idHash: Buffer, lastSeenAt: string): Promise<void> {
    return this.timing.time('touchConsoleSession', () => this.inner.touchConsoleSession(idHash, lastSeenAt));
  }
  deleteConsoleSession(idHash: Buffer): Promise<boolean> {
    return this.timing.time('deleteConsoleSession', () => this.inner.deleteConsoleSession(idHash));
  }
}
