import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A login role on the test server, and the URL of a database as that role. */
export interface TestRole {
  name: string;
  /** `databaseUrl` with this role's name and password. */
  url: string;
  drop(): Promise<void>;
}

/**
 * A role that row-level security binds: neither superuser nor BYPASSRLS (the
 * two that policies ignore), unless `bypassRls` asks for the latter, to show a
 * check catching it. Roles belong to the whole server, so the name is random
 * and `drop` removes it with what it owns in that database.
 */
export async function createTestRole(databaseUrl: string, options: { bypassRls?: boolean } = {}): Promise<TestRole> {
  const name = `ugs_role_${randomBytes(5).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const admin = new pg.Client(databaseUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${name} LOGIN PASSWORD '${password}' NOSUPERUSER ${options.bypassRls ? 'BYPASSRLS' : 'NOBYPASSRLS'}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.username = name;
  url.password = password;
  return {
    name,
    url: url.toString(),
    drop: () => dropRole(databaseUrl, name),
  };
}

/** Drops a role made for a test, with what it owns or was granted in that database (its only one). */
export async function dropRole(databaseUrl: string, name: string): Promise<void> {
  const client = new pg.Client(databaseUrl);
  await client.connect();
  try {
    await client.query(`DROP OWNED BY ${name} CASCADE`);
    await client.query(`DROP ROLE IF EXISTS ${name}`);
  } finally {
    await client.end();
  }
}
