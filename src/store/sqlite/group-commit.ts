import type Database from 'better-sqlite3';
import { ServiceError } from '../../kernel/errors.js';

/** What the store checks and learns around each batch's commit; see SqliteHealth. */
export interface CommitGuard {
  /** Throws when the batch must not be committed (its file is no longer the database's): it is rolled back and fails with that error. */
  beforeCommit(): void;
  /** The error a write, or a whole batch, fails with: a failure of the disk becomes `unavailable`. */
  failed(error: unknown): unknown;
  /** A batch committed and none of its writes failed for the disk's sake. */
  committed(): void;
}

const NO_GUARD: CommitGuard = { beforeCommit: () => {}, failed: (error) => error, committed: () => {} };

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** How long a write waits for another process's write lock (the CLI, a UGS_WORKERS sibling) before it fails as unavailable. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Group commit: writes that arrive in the same turn of the event loop run in
 * one transaction, so with synchronous=FULL a burst of N writes costs one
 * fsync instead of N. Nobody is answered before the COMMIT that holds their
 * write has returned, so every acknowledged write is durable.
 *
 * Each write runs in its own savepoint inside the batch, so it is atomic as it
 * would be alone: a write that throws (a constraint, say) rolls back all of
 * its statements, rejects, and leaves the others in the batch untouched.
 * Some failures (SQLITE_FULL, SQLITE_IOERR) may make SQLite roll back the
 * whole transaction; then every write of the batch fails, those that had
 * succeeded included, since none of them is kept.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  /** When the pending writes started waiting for another process's write lock. */
  private waitingSince: number | undefined;
  /** Prepared once: `db.pragma()` would compile these twice per batch. */
  private readonly busyTimeout: { off: Database.Statement; on: Database.Statement };
  /** Created once: better-sqlite3 builds four wrappers per `db.transaction()` call. Inside BEGIN it is a savepoint. */
  private readonly inSavepoint: (write: () => unknown) => unknown;

  /**
   * @param busyTimeoutMs the connection's busy_timeout, restored after each BEGIN;
   *   also how long writes may wait for another process's write lock before they fail.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly busyTimeoutMs = BUSY_TIMEOUT_MS,
    private readonly guard: CommitGuard = NO_GUARD,
  ) {
    this.busyTimeout = { off: db.prepare('PRAGMA busy_timeout = 0'), on: db.prepare(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`) };
    this.inSavepoint = db.transaction((write: () => unknown) => write());
  }

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.schedule(0);
    });
  }

  private schedule(delayMs: number): void {
    if (this.scheduled) return;
    this.scheduled = true;
    if (delayMs === 0) setImmediate(() => this.flush());
    else setTimeout(() => this.flush(), delayMs);
  }

  private flush(): void {
    this.scheduled = false;
    if (!this.begin()) return;
    const batch = this.pending;
    this.pending = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    let diskFailed = false;
    try {
      for (const { write } of batch) {
        try {
          outcomes.push({ ok: true, value: this.inSavepoint(write) });
        } catch (error) {
          if (!this.db.inTransaction) throw error;
          const failure = this.guard.failed(error);
          diskFailed ||= failure !== error;
          outcomes.push({ ok: false, value: failure });
        }
      }
      this.guard.beforeCommit();
      this.db.exec('COMMIT');
    } catch (error) {
      this.rollback();
      const failure = this.guard.failed(error);
      for (const { reject } of batch) reject(failure);
      return;
    }
    if (!diskFailed) this.guard.committed();
    batch.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.value);
    });
  }

  /** A ROLLBACK that fails too (the disk is failing) must not throw out of the event loop: the batch fails either way. */
  private rollback(): void {
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // SQLite rolls back what it cannot keep when the connection next reads.
    }
  }

  /**
   * BEGIN IMMEDIATE without SQLite's busy handler, which sleeps with the
   * event loop blocked while another process (a UGS_WORKERS sibling, the CLI)
   * holds the write lock: requests could not even be read meanwhile. When the
   * lock is taken, the pending writes wait on a timer instead, joined by those
   * that arrive meanwhile, and fail as `unavailable` after `busyTimeoutMs`.
   * False when the batch is not to run now.
   */
  private begin(): boolean {
    // A write queued just before the store closed (a heartbeat at shutdown) fails its caller, not the process.
    if (!this.db.open) {
      const batch = this.pending;
      this.pending = [];
      for (const { reject } of batch) reject(new ServiceError('unavailable', 'The store is closed.'));
      return false;
    }
    this.busyTimeout.off.get();
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.waitingSince = undefined;
      return true;
    } catch (error) {
      const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY';
      const now = Date.now();
      this.waitingSince ??= now;
      if (busy && now - this.waitingSince < this.busyTimeoutMs) {
        this.schedule(1);
        return false;
      }
      this.waitingSince = undefined;
      const failure = busy
        ? new ServiceError('unavailable', `Another process held the store's write lock for over ${this.busyTimeoutMs} ms; retry shortly.`, {
            retryAfterSeconds: 1,
          })
        : this.guard.failed(error);
      const batch = this.pending;
      this.pending = [];
      for (const { reject } of batch) reject(failure);
      return false;
    } finally {
      this.busyTimeout.on.get();
    }
  }
}
