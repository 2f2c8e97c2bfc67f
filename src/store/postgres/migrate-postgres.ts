import { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { migrationsFor } from '../migrations/index.js';

/**
 * Applies pending migrations through Kysely's migrator. Kysely runs them in
 * one transaction holding a lock, so replicas starting together migrate once
 * and the others wait, then find nothing to do. Returns the names applied.
 */
export async function migratePostgres(pool: pg.Pool): Promise<string[]> {
  // Kysely ends the pool it is given on destroy; lend it connections from ours instead.
  const lent = { connect: () => pool.connect(), end: async () => {} } as unknown as pg.Pool;
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: lent }) });
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrationsFor('postgres') } });
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  } finally {
    await db.destroy();
  }
}

/** Whether the database holds a store already: Kysely's migration table exists (in the search path). */
export async function holdsStore(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [DEFAULT_MIGRATION_TABLE]);
  return rows[0]?.present === true;
}
