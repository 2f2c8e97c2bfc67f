import type { PostgresConfig } from '../../src/platform/config.js';
import { after } from 'node:test';
import { createDatabaseOn, startEmbeddedPostgres, TEST_DATABASE_ENV, type EmbeddedServer } from './embedded-postgres.js';
import { createTemplateOn, TEST_TEMPLATE_ENV, type TemplateDatabase } from './postgres-template.js';

/**
 * A real PostgreSQL for tests. `npm test` (test/run-tests.ts) starts one
 * embedded server per run, or uses DATABASE_URL, and hands it to every test
 * process as UGS_TEST_DATABASE_URL, with a migrated template database as
 * UGS_TEST_TEMPLATE_DATABASE; a test file run on its own makes what it lacks.
 */

let ownServer: Promise<EmbeddedServer> | undefined;
let ownTemplate: Promise<TemplateDatabase> | undefined;
// A test file run on its own removes what it made when its tests are done.
after(async () => {
  if (ownTemplate) await (await ownTemplate).drop();
  if (ownServer) await (await ownServer).stop();
});

/** The test server's superuser URL, allowed to create databases (the benchmark's scale runs make one per size). */
export async function testServerAdminUrl(): Promise<string> {
  const given = process.env[TEST_DATABASE_ENV];
  if (given) return given;
  ownServer ??= startEmbeddedPostgres({ durable: false });
  return (await ownServer).url;
}

async function templateName(): Promise<string> {
  const given = process.env[TEST_TEMPLATE_ENV];
  if (given) return given;
  ownTemplate ??= testServerAdminUrl().then(createTemplateOn);
  return (await ownTemplate).name;
}

export interface TestDatabase {
  url: string;
  config: PostgresConfig;
  drop(): Promise<void>;
}

/**
 * A new database on the test server; `drop` removes it. Empty unless
 * `migrated`: then a copy of the template, holding the latest schema, for
 * tests whose subject is not how a store comes to be.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const database = await createDatabaseOn(await testServerAdminUrl(), 'ugs_test', options.migrated ? await templateName() : undefined);
  return {
    ...database,
    config: { url: database.url, poolSize: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 },
  };
}

/** Which store the HTTP suite runs on: `npm test` runs it once with each. */
export function testStoreKind(): 'sqlite' | 'postgres' {
  return process.env.UGS_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}
