import type { PostgresConfig } from '../../src/config.js';
import { after } from 'node:test';
import { createDatabaseOn, startEmbeddedPostgres, TEST_DATABASE_ENV, type EmbeddedServer } from './embedded-postgres.js';

/**
 * A real PostgreSQL for tests. `npm test` (test/run-tests.ts) starts one
 * embedded server per run, or uses DATABASE_URL, and hands it to every test
 * process as UGS_TEST_DATABASE_URL; a test file run on its own starts one itself.
 */

let ownServer: Promise<EmbeddedServer> | undefined;
// A test file run on its own stops the server it started when its tests are done.
after(async () => {
  if (ownServer) await (await ownServer).stop();
});

async function adminUrl(): Promise<string> {
  const given = process.env[TEST_DATABASE_ENV];
  if (given) return given;
  ownServer ??= startEmbeddedPostgres();
  return (await ownServer).url;
}

export interface TestDatabase {
  url: string;
  config: PostgresConfig;
  drop(): Promise<void>;
}

/** A new, empty database on the test server; `drop` removes it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const database = await createDatabaseOn(await adminUrl(), 'ugs_test');
  return {
    ...database,
    config: { url: database.url, poolSize: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 },
  };
}

/** Which store the HTTP suite runs on: `npm test` runs it once with each. */
export function testStoreKind(): 'sqlite' | 'postgres' {
  return process.env.UGS_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}
