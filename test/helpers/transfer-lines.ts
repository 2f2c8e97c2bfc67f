import { join } from 'node:path';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { makeTempDir } from './temp-dir.js';

/** An export's lines, as `ugs export` writes them (without their newline). */
export async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line.trimEnd());
  return out;
}

/** What an import reads: the lines again, as often as asked. */
export const from = (lines: string[]) => () =>
  (async function* () {
    yield* lines;
  })();

export const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown> & { type: string });

/**
 * Stores for a transfer test, each closed (and each PostgreSQL database dropped) by `close`: SQLite files in one
 * temp folder, and migrated PostgreSQL databases of the embedded server.
 */
export function transferStores(folder: string) {
  const dir = makeTempDir(folder);
  const stores: Store[] = [];
  const databases: TestDatabase[] = [];
  return {
    async sqlite(name: string): Promise<Store> {
      const { store } = await SqliteStore.open({ path: join(dir.path, `${name}.sqlite`) });
      stores.push(store);
      return store;
    },
    async postgres(): Promise<Store> {
      const database = await createTestDatabase({ migrated: true });
      databases.push(database);
      const { store } = await PostgresStore.open({
        connectionString: database.url,
        poolSize: 2,
        statementTimeoutMs: 5000,
        connectTimeoutMs: 2000,
      });
      stores.push(store);
      return store;
    },
    async close(): Promise<void> {
      for (const store of stores) await store.close();
      for (const database of databases) await database.drop();
      dir.remove();
    },
  };
}
