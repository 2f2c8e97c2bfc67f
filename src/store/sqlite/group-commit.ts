import type Database from 'better-sqlite3';

interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes that arrive in the same turn of the event loop run in
 * one transaction, so with synchronous=FULL a burst of N writes costs one
 * fsync instead of N. Nobody is answered before the COMMIT that holds their
 * write has returned, so every acknowledged write is durable.
 *
 * Each write runs as it would alone: better-sqlite3 turns a write's own
 * `db.transaction()` into a savepoint inside the batch, and a failing
 * statement rolls back only itself, so one write's error (a constraint, say)
 * rejects that write and leaves the others in the batch untouched.
 */
export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;

  constructor(private readonly db: Database.Database) {}

  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const { write } of batch) {
        try {
          outcomes.push({ ok: true, value: write() });
        } catch (error) {
          outcomes.push({ ok: false, value: error });
        }
      }
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const { reject } of batch) reject(error);
      return;
    }
    batch.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.value);
    });
  }
}
