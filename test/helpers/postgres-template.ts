import pg from 'pg';
import { migratePostgres } from '../../src/store/postgres/migrate-postgres.js';
import { createDatabaseOn, type Database } from './embedded-postgres.js';

/**
 * A database migrated to the latest schema, for `CREATE DATABASE … TEMPLATE`:
 * copying it costs a fraction of running every migration again for each test's
 * database. No node:test import: test/run-tests.ts makes one per run.
 */

/** How `npm test` hands the template's name to every test process. */
export const TEST_TEMPLATE_ENV = 'UGS_TEST_TEMPLATE_DATABASE';

export interface TemplateDatabase extends Database {
  name: string;
}

/** Migrates a new database on the server at `adminUrl`, then closes it to connections (a copy needs it idle). */
export async function createTemplateOn(adminUrl: string): Promise<TemplateDatabase> {
  const database = await createDatabaseOn(adminUrl, 'ugs_template');
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    await migratePostgres(pool);
  } finally {
    await pool.end();
  }
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  } finally {
    await admin.end();
  }
  return { ...database, name };
}
