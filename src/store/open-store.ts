import { join } from 'node:path';
import type { Config } from '../config.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

export const SQLITE_FILE = 'user-groups.sqlite';

/** The store the configuration selects, migrated to the latest schema. */
export async function openStore(config: Pick<Config, 'dataDir'>): Promise<{ store: Store; appliedMigrations: string[] }> {
  return SqliteStore.open({ path: join(config.dataDir, SQLITE_FILE) });
}
