import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { sqliteMigrations } from './migrations/index.js';

/**
 * Applies pending migrations through Kysely's migrator on a connection of its
 * own (Kysely closes the connection it is given). Returns the names applied.
 */
export async function migrateSqlite(path: string): Promise<string[]> {
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(path, { timeout: 5000 }) }) });
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => sqliteMigrations } });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    await db.destroy();
  }
}
