import { readdirSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';

/**
 * The shipped migrations' names, from their files in ../migrations/: a
 * migration is named after its file (Kysely's own convention), so the names
 * are known without loading Kysely and the migrations
 * (test/store/sqlite-store.test.ts checks they agree).
 */
export function shippedMigrationNames(): string[] {
  return readdirSync(new URL('../migrations/', import.meta.url))
    .filter((file) => /^\d{3}-[\w-]+\.js$/.test(file))
    .map((file) => file.slice(0, -'.js'.length))
    .sort();
}

/** True when the history lists exactly the shipped migrations: the usual start, which then loads no migrator. */
function isUpToDate(connection: InstanceType<typeof SqliteDatabase>): boolean {
  const history = connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
  if (history === undefined) return false;
  const applied = new Set(connection.prepare('SELECT name FROM kysely_migration').pluck().all() as string[]);
  const shipped = shippedMigrationNames();
  return applied.size === shipped.length && shipped.every((name) => applied.has(name));
}

/**
 * Applies pending migrations through Kysely's migrator, inside one
 * `BEGIN IMMEDIATE` transaction of our own. Kysely takes no lock and uses no
 * transaction on SQLite; ours makes processes that start together (the server
 * and `ugs keys create`, say) wait for each other, and makes a failed
 * migration leave nothing half-applied. Returns the names applied.
 */
export async function migrateSqlite(path: string, busyTimeoutMs: number): Promise<string[]> {
  const connection = new SqliteDatabase(path, { timeout: busyTimeoutMs });
  if (isUpToDate(connection)) {
    connection.close();
    return [];
  }
  // Loaded only with something to apply (or a history to refuse): importing Kysely costs a CLI call about a third of its start.
  const [{ Kysely, Migrator, SqliteDialect }, { migrationsFor }] = await Promise.all([import('kysely'), import('../migrations/index.js')]);
  const migrations = migrationsFor('sqlite');
  // Kysely closes the connection it is given on destroy, so it gets one of its own.
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: connection }) });
  try {
    connection.exec('BEGIN IMMEDIATE');
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    connection.exec('COMMIT');
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    if (connection.inTransaction) connection.exec('ROLLBACK');
    await db.destroy();
  }
}
