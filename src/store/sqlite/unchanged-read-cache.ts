import type Database from 'better-sqlite3';
import { VersionedReadCache } from '../versioned-read-cache.js';

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
 * the values kept and the marks checked come from one snapshot.
 */
export class UnchangedReadCache<V extends object> {
  private readonly marks: Database.Statement<[], WriteMarks>;
  private readonly values: VersionedReadCache<V>;

  constructor(
    db: Database.Database,
    /** Most values kept; the oldest read goes first. */
    maxValues: number,
  ) {
    this.marks = db.prepare<[], WriteMarks>('SELECT data_version AS version, total_changes() AS changes FROM pragma_data_version');
    this.values = new VersionedReadCache(maxValues);
  }

  /** Forgets every value when anything was written since they were read. */
  unchanged(): void {
    const now = this.marks.get()!;
    this.values.at(`${now.version}:${now.changes}`);
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Keeps `value` (frozen, with the plain objects it holds) and returns it. */
  keep(key: string, value: V): V {
    return this.values.keep(key, value);
  }
}
