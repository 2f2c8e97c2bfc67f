import { join } from 'node:path';
import type { Config } from '../config.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export const SQLITE_FILE = 'user-groups.sqlite';

export type StoreConfig = Pick<Config, 'dataDir' | 'postgres'>;

/** The store the configuration selects (PostgreSQL when DATABASE_URL is set), migrated to the latest schema. */
export async function openStore(config: StoreConfig): Promise<{ store: Store; appliedMigrations: string[] }> {
  if (config.postgres) {
    // Loaded only when asked for: the embedded default starts without pg.
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    const { url, ...pool } = config.postgres;
    return PostgresStore.open({ connectionString: url, ...pool });
  }
  return SqliteStore.open({ path: join(config.dataDir, SQLITE_FILE) });
}
