import { join } from 'node:path';
import type { Config } from '../platform/config.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store, StoreLog } from './store.js';

export const SQLITE_FILE = 'user-groups.sqlite';

export interface StoreConfig extends Pick<Config, 'dataDir' | 'postgres'> {
  /** SQLite: create the store even where the data dir held one whose database is missing (`ugs migrate --create`). */
  createStore?: boolean;
  /** Refuse, creating nothing, where there is no store yet: commands that only use an existing store set it. */
  mustExist?: boolean;
  /** Where the store reports, once each, a deleted database file or a disk that refuses writes. */
  storeLog?: StoreLog;
}

/**
 * The store the configuration selects (PostgreSQL when DATABASE_URL is set),
 * migrated to the latest schema; `created` when this call made it.
 */
export async function openStore(config: StoreConfig): Promise<{ store: Store; appliedMigrations: string[]; created: boolean }> {
  if (config.postgres) {
    // Loaded only when asked for: the embedded default starts without pg.
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    const { url, ...pool } = config.postgres;
    return PostgresStore.open({ connectionString: url, ...pool, mustExist: config.mustExist });
  }
  return SqliteStore.open({
    path: join(config.dataDir, SQLITE_FILE),
    create: config.createStore,
    mustExist: config.mustExist,
    log: config.storeLog,
  });
}
