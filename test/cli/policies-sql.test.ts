import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { withSessionClaims, type PolicyClaims } from 'user-group-service/embed';
import type { CliResult } from '../helpers/cli.js';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';
import { assertOneLineFailure, Sandbox } from './cli-support.js';

/**
 * `ugs policies sql` as a real process, its output run on real PostgreSQL as
 * psql would run it (the whole text, one simple query), then read as a role
 * policies bind: what it installs is judged by the rows each session sees.
 */

describe('ugs policies sql', () => {
  const sandbox = new Sandbox();
  // An empty data dir: the command opens no store, so none is made or needed.
  const dir = sandbox.dir('ugs-policies');
  let database: TestDatabase;
  let role: TestRole;
  const ugs = (args: string[]) => sandbox.ugsProcess(dir, ['policies', 'sql', ...args]);
  const admin = (sql: string) => adminQuery(database.url, sql);
  /** Pipes the command's output into the database, as `ugs policies sql … | psql` does. */
  const install = async (args: string[]): Promise<CliResult> => {
    const result = await ugs(args);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '', 'nothing on stderr: no store opened');
    await admin(result.stdout);
    return result;
  };
  /** What a session of `claims` reads, as the role. */
  const read = async (claims: PolicyClaims | undefined, sql: string): Promise<unknown[]> => {
    const client = new pg.Client(role.url);
    await client.connect();
    try {
      const query = async (c: pg.Client) => (await c.query(sql)).rows.map((row: Record<string, unknown>) => Object.values(row)[0]);
      return claims === undefined ? await query(client) : await withSessionClaims(client, claims, query);
    } finally {
      await client.end();
    }
  };

  before(async () => {
    database = await createTestDatabase();
    role = await createTestRole(database.url);
    await admin(`
      CREATE TABLE orders (id int, tenant_id text);
      INSERT INTO orders VALUES (1, 'acme'), (2, 'acme'), (3, 'globex');
      CREATE TABLE "Sales Notes" (rep text, note text);
      INSERT INTO "Sales Notes" VALUES ('ann', 'a'), ('bob', 'b');
      CREATE TABLE accounts (tenant text, name text);
      INSERT INTO accounts VALUES ('acme', 'a'), ('acme-emea', 'b'), ('globex', 'c');
      GRANT SELECT ON orders, "Sales Notes", accounts TO ${role.name};
    `);
  });
  after(async () => {
    await role?.drop();
    await database?.drop();
    await sandbox.cleanup();
  });

  it('alone prints the ugs schema only; piped into the database, its functions read the session', async () => {
    const result = await install([]);
    assert.match(result.stdout, /^CREATE SCHEMA IF NOT EXISTS ugs;$/m);
    assert.doesNotMatch(result.stdout, /ALTER TABLE|CREATE POLICY/);
    assert.deepEqual(await read({ sub: 'acme', props: {} }, 'SELECT ugs.user_group_id()'), ['acme']);
    assert.deepEqual(await read(undefined, 'SELECT ugs.user_group_id()'), [null]);
    // Without a policy the table is open to every session and to none: what --table adds below closes it.
    assert.deepEqual(await read(undefined, 'SELECT id FROM orders ORDER BY id'), [1, 2, 3]);
  });

  it('--table --column installs a policy: a session sees its group’s rows, no claims see none', async () => {
    const result = await install(['--table', 'orders', '--column', 'tenant_id']);
    assert.match(result.stdout, /^ALTER TABLE orders FORCE ROW LEVEL SECURITY;$/m);
    const ids = 'SELECT id FROM orders ORDER BY id';
    assert.deepEqual(await read({ sub: 'acme', props: {} }, ids), [1, 2]);
    assert.deepEqual(await read({ sub: 'globex', props: {} }, ids), [3]);
    assert.deepEqual(await read(undefined, ids), []);
  });

  it('--property binds the column to a property of the group; --subtree to the group and its descendants', async () => {
    await install(['--table', 'Sales Notes', '--column', 'rep', '--property', 'sales_rep']);
    const notes = 'SELECT note FROM "Sales Notes" ORDER BY note';
    assert.deepEqual(await read({ sub: 'acme', props: { sales_rep: 'bob' } }, notes), ['b']);
    assert.deepEqual(await read({ sub: 'acme', props: {} }, notes), []);

    await install(['--table', 'public.accounts', '--column', 'tenant', '--subtree']);
    const names = 'SELECT name FROM accounts ORDER BY name';
    assert.deepEqual(await read({ sub: 'acme', props: {}, desc: ['acme-emea'] }, names), ['a', 'b']);
    assert.deepEqual(await read({ sub: 'acme', props: {} }, names), ['a']);
    assert.deepEqual(await read(undefined, names), []);
  });

  it('refuses half a binding in one line, exit 1, printing no SQL', async () => {
    const refusals: [string[], string][] = [
      [['--table', 'orders'], 'give --table and --column together'],
      [['--column', 'tenant_id'], 'give --table and --column together'],
      [['--property', 'region'], '--column-type, --property and --subtree bind a table: give --table and --column too'],
      [['--column-type', 'uuid'], '--column-type, --property and --subtree bind a table: give --table and --column too'],
      [['--table', 'orders', '--column', 'tenant_id', '--property', 'region', '--subtree'], 'give --property or --subtree, not both'],
      [['--table', 'a.b.c', '--column', 'tenant_id'], '"a.b.c" is not a table name'],
    ];
    for (const [args, message] of refusals) {
      const result = await ugs(args);
      assertOneLineFailure(result, [`ugs: ${message}`]);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
    }
    const unknownType = await ugs(['--table', 'orders', '--column', 'tenant_id', '--column-type', 'json']);
    assert.notEqual(unknownType.code, 0);
    assert.equal(unknownType.stdout, '');
    assert.match(unknownType.stderr, /'json' is invalid\. Allowed choices are text, varchar, uuid, integer, bigint/);
  });

  it('--column-type compares as the column’s type, by pg_catalog’s =: operators planted in public change nothing', async () => {
    const [acme, globex] = [randomUUID(), randomUUID()];
    await admin(`
      CREATE TABLE handles (tenant varchar NOT NULL, handle text);
      INSERT INTO handles VALUES ('acme', 'a'), ('globex', 'g');
      CREATE TABLE devices (tenant uuid NOT NULL, device text);
      INSERT INTO devices VALUES ('${acme}', 'a'), ('${globex}', 'g');
      GRANT SELECT ON handles, devices TO ${role.name};
    `);
    // A role that may create in public, as every role may on PostgreSQL 14, plants a `=` that is always true for each column.
    const mallory = await createTestRole(database.url);
    try {
      await admin(`GRANT CREATE ON SCHEMA public TO ${mallory.name}`);
      await adminQuery(
        mallory.url,
        ['varchar', 'uuid']
          .map(
            (
              type,
            ) => `CREATE FUNCTION public.ugs_hostile_eq(pg_catalog.${type}, pg_catalog.text) RETURNS pg_catalog.bool LANGUAGE sql RETURN true;
CREATE OPERATOR public.= (LEFTARG = pg_catalog.${type}, RIGHTARG = pg_catalog.text, FUNCTION = public.ugs_hostile_eq);`,
          )
          .join('\n'),
      );
      const result = await install(['--table', 'handles', '--column', 'tenant', '--column-type', 'varchar']);
      assert.match(result.stdout, /^ {2}USING \(tenant OPERATOR\(pg_catalog\.=\) \(SELECT ugs\.user_group_id\(\)\)\)$/m);
      await install(['--table', 'devices', '--column', 'tenant', '--column-type', 'uuid']);
      assert.deepEqual(await read({ sub: 'acme', props: {} }, 'SELECT handle FROM handles'), ['a']);
      assert.deepEqual(await read({ sub: acme, props: {} }, 'SELECT device FROM devices'), ['a']);
      assert.deepEqual(await read({ sub: globex, props: {} }, 'SELECT device FROM devices'), ['g']);
      assert.deepEqual(await read(undefined, 'SELECT device FROM devices'), []);
    } finally {
      await mallory.drop();
    }
  });
});
