import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { sqliteMigrations } from './migrations/index.js';

/**
 * Applies pending migrations through Kysely's migrator, inside one
 * `BEGIN IMMEDIATE` transaction of our own. Kysely takes no lock and uses no
 * transaction on SQLite; ours makes processes that start together (the server
 * and `ugs keys create`, say) wait for each other, and makes a failed
 * migration leave nothing half-applied. Returns the names applied.
 */
export async function migrateSqlite(path: string, busyTimeoutMs: number): Promise<string[]> {
  const connection = new SqliteDatabase(path, { timeout: busyTimeoutMs });
  // Kysely closes the connection it is given on destroy, so it gets one of its own.
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: connection }) });
  try {
    connection.exec('BEGIN IMMEDIATE');
    const migrator = new Migrator({ db, provider: { getMigrations: async () => sqliteMigrations } });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    connection.exec('COMMIT');
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    if (connection.inTransaction) connection.exec('ROLLBACK');
    await db.destroy();
  }
}
