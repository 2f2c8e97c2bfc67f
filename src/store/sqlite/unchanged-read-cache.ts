import type Database from 'better-sqlite3';

/** What the database says of writes since a moment: any other connection's commit, and any row this connection changed. */
interface WriteMarks {
  version: number;
  changes: number;
}

/**
 * Values read from the database, kept only while no write could have changed
 * them: each batch of reads first asks SQLite whether anything was written
 * since the values were read (`PRAGMA data_version` moves when another
 * connection, another worker or the CLI, has committed; `total_changes()` when
 * this connection changed any row, committed or rolled back), and forgets
 * every value if so. So an answer from it is the one the table would give:
 * exact across processes, with no per-write invalidation to forget. One
 * statement per batch, against a lookup per key (docs/performance.md).
 *
 * Call `unchanged()` inside the read transaction the misses are read in, so
 * the values kept and the marks checked come from one snapshot. Values are
 * shared by every caller: they are frozen so that none can change another's.
 */
export class UnchangedReadCache<V extends object> {
  private readonly marks: Database.Statement<[], WriteMarks>;
  private seen: WriteMarks | undefined;
  private values = new Map<string, V>();

  constructor(
    db: Database.Database,
    /** Most values kept; the oldest read goes first. */
    private readonly maxValues: number,
  ) {
    this.marks = db.prepare<[], WriteMarks>('SELECT data_version AS version, total_changes() AS changes FROM pragma_data_version');
  }

  /** Forgets every value when anything was written since they were read. */
  unchanged(): void {
    const now = this.marks.get()!;
    if (this.seen === undefined || now.version !== this.seen.version || now.changes !== this.seen.changes) {
      this.seen = now;
      if (this.values.size > 0) this.values = new Map();
    }
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Keeps `value` (frozen, with the plain objects it holds) and returns it. */
  keep(key: string, value: V): V {
    if (this.values.size >= this.maxValues) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, deepFreeze(value));
    return value;
  }
}

/** Freezes an object and the plain objects and arrays under it; binary values (Buffers) cannot be frozen and are left as they are. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
