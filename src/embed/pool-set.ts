import type { Pool } from 'pg';
import type { PostgresSettings, RoutedDataSource } from './data-source-credentials.js';
import { pgSslOptions } from './pg-ssl-options.js';

/** What every pool of a router shares (createDataRouter's options). */
export interface PoolBounds {
  readonly maxPools: number;
  readonly maxConnectionsPerPool: number;
  readonly idleTimeoutMs: number;
  readonly connectTimeoutMs: number;
}

/** A PostgreSQL data source as the service last answered it, the settings its pool is opened with. */
export type PostgresDataSource = RoutedDataSource & { readonly postgres: PostgresSettings };

/** A pool held by one run: release() once the run has given its connection back. */
export interface PoolLease {
  readonly pool: Pool;
  release(): void;
}

interface PoolEntry {
  readonly id: string;
  readonly environment: string;
  readonly version: number;
  readonly pool: Pool;
  /** Runs holding the pool: it is ended only when none does, so no run waits on a pool that will never answer. */
  leases: number;
  retired: boolean;
}

/**
 * One pg.Pool per data source, opened on first use with the settings of the version the service last answered,
 * at most `maxPools` of them taking runs. A pool is retired when its data source changes version or is gone, or
 * to make room (the least recently used, an idle one first): it takes no new run, and is ended once the runs
 * holding it have finished, so a run never sees its pool closed under it.
 */
export class PoolSet {
  /** In order of use, least recent first. */
  private readonly entries = new Map<string, PoolEntry>();
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly PgPool: typeof Pool,
    private readonly bounds: PoolBounds,
  ) {}

  /** Pools taking runs. */
  get size(): number {
    return this.entries.size;
  }

  /** The pool of `source`'s version, opened now if need be; the run must release() the lease. */
  lease(source: PostgresDataSource): PoolLease {
    let entry = this.entries.get(source.id);
    if (entry !== undefined && (entry.version !== source.version || entry.environment !== source.environment)) {
      this.retire(entry);
      entry = undefined;
    }
    if (entry === undefined) {
      if (this.entries.size >= this.bounds.maxPools) this.retire(this.leastRecentlyUsed());
      entry = this.open(source);
    } else {
      // Moved to the end: the map's order is the order of use.
      this.entries.delete(source.id);
    }
    this.entries.set(source.id, entry);
    entry.leases++;
    const held = entry;
    let released = false;
    return {
      pool: held.pool,
      release: () => {
        if (released) return;
        released = true;
        held.leases--;
        if (held.retired && held.leases === 0) this.end(held);
      },
    };
  }

  /** What the service now says of data source `id` (null: gone): a pool of another version, or of none, is retired. */
  sync(id: string, source: RoutedDataSource | null): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    if (source === null || source.version !== entry.version || source.environment !== entry.environment) this.retire(entry);
  }

  /** Retires every pool; resolves once each has ended (after the runs holding them have finished). */
  async close(): Promise<void> {
    for (const entry of [...this.entries.values()]) this.retire(entry);
    while (this.ending.size > 0) await Promise.all(this.ending);
  }

  private open(source: PostgresDataSource): PoolEntry {
    const { host, port, database, user, password, ssl } = source.postgres;
    const pool = new this.PgPool({
      host,
      port,
      database,
      user,
      // A function: node-postgres falls back to PGPASSWORD and ~/.pgpass for a missing password, and the
      // dashboard's own must never reach a data source's server.
      password: () => password ?? '',
      ssl: pgSslOptions(ssl),
      application_name: 'ugs-data-router',
      max: this.bounds.maxConnectionsPerPool,
      idleTimeoutMillis: this.bounds.idleTimeoutMs,
      connectionTimeoutMillis: this.bounds.connectTimeoutMs,
      // Like the verifier's timers: a router never keeps a process alive.
      allowExitOnIdle: true,
    });
    // An idle connection the server closed: the pool drops it; unhandled, the event would end the process.
    pool.on('error', () => undefined);
    return { id: source.id, environment: source.environment, version: source.version, pool, leases: 0, retired: false };
  }

  private leastRecentlyUsed(): PoolEntry {
    for (const entry of this.entries.values()) if (entry.leases === 0) return entry;
    return this.entries.values().next().value!;
  }

  private retire(entry: PoolEntry): void {
    if (entry.retired) return;
    entry.retired = true;
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
    if (entry.leases === 0) this.end(entry);
  }

  private end(entry: PoolEntry): void {
    const ended: Promise<void> = entry.pool
      .end()
      .catch(() => undefined)
      .finally(() => this.ending.delete(ended));
    this.ending.add(ended);
  }
}
