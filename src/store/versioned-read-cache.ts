/**
 * Values read from a database, each read at the version the cache holds:
 * `at(version)` names the version the database reports now and forgets every
 * value when it differs from theirs. Each store says what its version is (the
 * SQLite store its write marks, unchanged-read-cache.ts; the PostgreSQL store
 * the lookup statement's own snapshot, postgres-group-cache.ts) and what makes
 * two versions equal only while nothing was committed in between. So an answer
 * from the cache is the one the table gives at that version, in every process
 * on the database, with no per-write invalidation to forget.
 *
 * Values are shared by every caller: they are frozen so that none can change
 * another's.
 */
export class VersionedReadCache<V extends object> {
  private current: string | undefined;
  private values = new Map<string, V>();

  /** `maxValues`: most values kept; the oldest read goes first. */
  constructor(private readonly maxValues: number) {}

  /** The version every value kept was read at; undefined before the first. */
  get version(): string | undefined {
    return this.current;
  }

  /** The database is at `version` now: every value read at another is forgotten. */
  at(version: string): void {
    if (version === this.current) return;
    this.current = version;
    if (this.values.size > 0) this.values = new Map();
  }

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Keeps `value`, read at the current version (frozen, with the plain objects it holds), and returns it. */
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
