import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postgresPolicySql, tablePolicySql } from 'user-group-service/embed';
import type { Principal } from '../../src/kernel/principal.js';
import type { CliResult } from '../helpers/cli.js';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';
import { buildForSuite, build } from '../helpers/build.js';
import { assertOneLineFailure, errorLines, Sandbox, STACK_LINE } from './cli-support.js';

/**
 * `ugs isolation-check` as a real process against real PostgreSQL, connected
 * as roles made for the test: the groups live in the service's store (SQLite
 * here, beside a running server), the dashboard's tables in a database of
 * their own, under FORCE ROW LEVEL SECURITY.
 */

const WRITER: Principal = { keyId: 'test', environment: 'Customer', access: 'read-write' };

interface JsonReport {
  passed: boolean;
  outcome: string;
  role: string;
  groups: string[];
  queries: {
    query: number;
    line: number;
    first_line: string;
    rows: Record<string, number | null>;
    rows_without_claims: number | null;
    cross_tenant: string;
    key: string[] | null;
    tenant: { column: string; looked_up_in: string[] } | null;
  }[];
  problems: { query: number; line: number; first_line: string; kind: string; groups: string[]; message: string }[];
}

describe('ugs isolation-check', () => {
  const sandbox = new Sandbox();
  const dir = sandbox.dir('ugs-isolation');
  const files = sandbox.dir('ugs-isolation-queries');
  const env = { UGS_SECRET: randomBytes(32).toString('hex') };
  const server = buildForSuite({ dataDir: dir, secret: env.UGS_SECRET, kind: 'sqlite', apiKey: false });
  let database: TestDatabase;
  let role: TestRole;
  let bypass: TestRole;
  const passwordOf = (url: string) => new URL(url).password;

  /** Writes the queries to a file and runs the check on it as `url`'s role. */
  const check = async (sql: string, args: string[], url = role.url, storeEnv: Record<string, string> = {}): Promise<CliResult> => {
    const file = join(files, `${randomBytes(4).toString('hex')}.sql`);
    writeFileSync(file, sql);
    const result = await sandbox.ugsProcess(dir, ['isolation-check', '--database', url, '--queries', file, ...args], {
      ...env,
      ...storeEnv,
    });
    assert.ok(!result.stderr.includes(STACK_LINE), result.stderr);
    for (const secret of [passwordOf(url), passwordOf(database.url)].filter((p) => p !== ''))
      assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), 'the database password is never printed');
    return result;
  };
  const report = (result: CliResult) => JSON.parse(result.stdout) as JsonReport;
  const admin = (sql: string, values: unknown[] = []) => adminQuery(database.url, sql, values);

  before(async () => {
    await server.services.userGroups.getOrCreate(WRITER, { userGroupId: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await server.services.userGroups.getOrCreate(WRITER, { userGroupId: 'globex', name: 'Globex', properties: { region: 'us' } });
    await server.services.userGroups.getOrCreate(WRITER, { userGroupId: 'acme-emea', name: 'Acme EMEA', parentUserGroupId: 'acme' });

    database = await createTestDatabase();
    role = await createTestRole(database.url);
    bypass = await createTestRole(database.url, { bypassRls: true });
    await admin(postgresPolicySql());
    await admin(`
      CREATE TABLE orders (id int PRIMARY KEY, tenant_id text NOT NULL, region text NOT NULL, amount int NOT NULL);
      INSERT INTO orders VALUES (1, 'acme', 'eu', 10), (2, 'acme', 'eu', 20), (3, 'globex', 'us', 30), (4, 'acme-emea', 'eu', 40);
      ${tablePolicySql({ table: 'orders', column: 'tenant_id' })}
      -- No policy at all.
      CREATE TABLE unguarded (id int, tenant_id text);
      INSERT INTO unguarded VALUES (1, 'acme'), (2, 'globex');
      -- A policy on the wrong column: customer_id is whom the invoice is addressed to, not whose it is.
      CREATE TABLE invoices (id int, tenant_id text, customer_id text);
      INSERT INTO invoices VALUES (1, 'acme', 'globex'), (2, 'globex', 'acme');
      ${tablePolicySql({ table: 'invoices', column: 'customer_id' })}
      CREATE TABLE accounts (tenant text, name text);
      INSERT INTO accounts VALUES ('acme', 'a'), ('acme-emea', 'b'), ('globex', 'c');
      ${tablePolicySql({ table: 'accounts', column: 'tenant', subtree: true })}
      -- A policy that asks for a session but not whose: every group sees every row, no claims none.
      CREATE TABLE notes (id int PRIMARY KEY, tenant_id text NOT NULL, body text NOT NULL);
      INSERT INTO notes VALUES (1, 'acme', 'a'), (2, 'globex', 'g');
      ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
      ALTER TABLE notes FORCE ROW LEVEL SECURITY;
      CREATE POLICY any_session ON notes USING ((SELECT ugs.user_group_id()) IS NOT NULL);
      -- No policy: the dashboard's query narrows it by a property of the session itself.
      CREATE TABLE sales (id int PRIMARY KEY, tenant_id text NOT NULL, region text NOT NULL, amount int NOT NULL);
      INSERT INTO sales VALUES (1, 'acme', 'eu', 10), (2, 'globex', 'us', 20), (3, 'initech', 'eu', 30);
      -- A composite primary key holding a timestamp: acme's and globex's rows differ by a microsecond.
      CREATE TABLE readings (tenant_id text NOT NULL, taken_at timestamptz NOT NULL, sensor int NOT NULL, value int NOT NULL,
        PRIMARY KEY (taken_at, sensor));
      INSERT INTO readings VALUES ('acme', '2026-01-01 00:00:00.000001+00', 1, 5), ('globex', '2026-01-01 00:00:00.000002+00', 1, 6);
      ${tablePolicySql({ table: 'readings', column: 'tenant_id' })}
      GRANT SELECT, INSERT, UPDATE, DELETE ON orders, unguarded, invoices, accounts, notes, sales, readings TO ${role.name}, ${bypass.name};
    `);
  });

  const ORDERS = `-- The group's orders: no tenant clause, the policy keeps the others out.
SELECT id, tenant_id, amount FROM orders ORDER BY id;

SELECT id, tenant_id, 'a;b' AS "x;y", $body$ ; $body$ AS dollar /* ; */
  FROM orders WHERE region = {{ region }};
-- a comment after the last query; with a semicolon
`;

  after(async () => {
    await role?.drop();
    await bypass?.drop();
    await database?.drop();
    await sandbox.cleanup();
  });

  it('passes the correct setup: each group sees its own rows, no claims see none; exit 0 with a summary', async () => {
    const text = await check(ORDERS, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`^Ran 2 queries × 2 groups \\(acme, globex\\) and with no claims, as role ${role.name} on postgres://`),
    );
    assert.match(text.stdout, /^QUERY +LINE +ACME +GLOBEX +NO CLAIMS +CROSS-TENANT +FIRST LINE$/m);
    assert.match(text.stdout, /^1 +2 +2 +1 +0 +checked +SELECT id, tenant_id, amount FROM orders ORDER BY id$/m);
    assert.match(text.stdout, /^2 +4 +2 +1 +0 +checked +SELECT id, tenant_id, 'a;b'/m);
    assert.match(
      text.stdout,
      /^query 1 \(line 2\): checked: every row a group received carries its own tenant_id; no row reached two groups \(compared on id\)\.$/m,
    );
    assert.match(
      text.stdout,
      /^Passed: every query was checked: none returned rows with no claims, and each of the 6 rows the groups received carries its group's own tenant_id\.$/m,
    );
    assert.deepEqual(errorLines(text.stderr), []);

    const json = await check(ORDERS, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const { passed, queries, problems } = report(json);
    assert.equal(passed, true);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      queries.map((q) => [q.query, q.line, q.rows, q.rows_without_claims]),
      [
        [1, 2, { acme: 2, globex: 1 }, 0],
        [2, 4, { acme: 2, globex: 1 }, 0],
      ],
    );
  });

  it('checks a data source of the service: its stored connection (the password opened from its seal), every group mapping to it and their descendants', async () => {
    const url = new URL(role.url);
    await server.services.dataSources.create(WRITER, {
      id: 'orders-db',
      name: 'Orders',
      kind: 'postgresql',
      connection: {
        host: url.hostname,
        port: Number(url.port),
        database: url.pathname.slice(1),
        user: role.name,
        password: passwordOf(role.url),
      },
    });
    for (const userGroupId of ['acme', 'globex'])
      await server.services.userGroups.update(WRITER, { userGroupId, mapping: { orders: 'orders-db' } });
    const file = join(files, 'data-source.sql');
    writeFileSync(file, 'SELECT id, tenant_id, amount FROM orders ORDER BY id;');
    const result = await sandbox.ugsProcess(
      dir,
      ['isolation-check', '--data-source', 'orders-db', '--queries', file, '--tenant-column', 'tenant_id', '--json'],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!`${result.stdout}${result.stderr}`.includes(passwordOf(role.url)), 'the password is never printed');
    const json = report(result);
    assert.equal(json.passed, true);
    assert.deepEqual(json.queries[0]!.rows, { acme: 2, globex: 1, 'acme-emea': 1 }, 'acme-emea inherits the mapping: checked too');
    const both = await sandbox.ugsProcess(
      dir,
      ['isolation-check', '--data-source', 'orders-db', '--database', role.url, '--queries', file],
      env,
    );
    assert.equal(both.code, 2);
    assert.match(both.stderr, /either --database <url> or --data-source <id>/);
    const unknown = await sandbox.ugsProcess(dir, ['isolation-check', '--data-source', 'nope', '--queries', file], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /No data source "nope"/);
  });

  it('fails a table without a policy: rows with no claims, and the same rows for both groups, naming the query and the groups', async () => {
    // unguarded has no primary key: --key names its rows.
    const sql = 'SELECT id, tenant_id FROM orders;\nSELECT id, tenant_id\n  FROM unguarded;';
    const text = await check(sql, ['--groups', 'acme,globex', '--key', 'id']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^Failed: 2 problems, and 2 of 2 queries could not be checked for rows of another group\.$/m);
    assert.match(text.stdout, /^- query 2 \(line 2: SELECT id, tenant_id\): returned 2 rows with no claims set \(e\.g\. \[\d,"\w+"\]\)/m);
    assert.match(
      text.stdout,
      /^- query 2 \(line 2: SELECT id, tenant_id\), groups acme, globex: returned the same 2 rows \(by id\) to acme and globex/m,
    );
    assert.doesNotMatch(text.stdout, /^- query 1 /m, 'the guarded table passes');
    assert.deepEqual(errorLines(text.stderr), [
      'ugs: the isolation check failed: 2 problems in 1 of 2 queries, and 2 of 2 could not be checked for rows of another group (the report on stdout).',
    ]);

    const json = report(await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--key', 'id', '--json']));
    assert.equal(json.passed, false);
    assert.deepEqual(
      json.problems.map((p) => [p.query, p.kind, p.groups]),
      [
        [2, 'foreign_tenant', ['acme']],
        [2, 'foreign_tenant', ['globex']],
        [2, 'rows_without_claims', []],
        [2, 'shared_row', ['acme', 'globex']],
      ],
    );
  });

  it('fails a policy comparing the wrong column: with --tenant-column, each group received a row of the other', async () => {
    const result = await check('SELECT * FROM invoices ORDER BY id', ['--groups', 'acme,globex', '--tenant-column', 'tenant_id']);
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /^- query 1 \(line 1: SELECT \* FROM invoices ORDER BY id\), group acme: acme received 1 row whose tenant_id is not acme \(e\.g\. tenant_id = "globex"\): the policy compares another column/m,
    );
    assert.match(
      result.stdout,
      /^- query 1 \(line 1: SELECT \* FROM invoices ORDER BY id\), group globex: globex received 1 row whose tenant_id is not globex/m,
    );
    assert.match(result.stdout, /^Failed: 2 problems\.$/m, 'no claims still see nothing, and no row reached both');
  });

  it('refuses a role with BYPASSRLS and a superuser, saying why, before running anything', async () => {
    const bypassing = await check('SELECT id, tenant_id FROM orders', ['--groups', 'acme,globex'], bypass.url);
    assertOneLineFailure(bypassing, [
      `ugs: refusing to check as role "${bypass.name}": it has BYPASSRLS, and such a role ignores row-level security policies`,
      'Connect as the role the dashboard queries with.',
    ]);
    assert.equal(bypassing.code, 2);
    assert.equal(bypassing.stdout, '');

    const superuser = await check('SELECT id, tenant_id FROM orders', ['--groups', 'acme,globex'], database.url);
    assertOneLineFailure(superuser, [
      /ugs: refusing to check as role "[^"]+": it is a superuser, and such a role ignores row-level security/,
    ]);
    assert.equal(superuser.code, 2);
  });

  it('runs every query in a transaction it rolls back: what a query writes is not kept', async () => {
    const before = (await admin('SELECT id, tenant_id, amount FROM orders ORDER BY id')).rows;
    const sql = `UPDATE orders SET amount = amount + 1 RETURNING id, tenant_id;
DELETE FROM orders RETURNING id, tenant_id;`;
    const result = await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--json']);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(
      report(result).queries.map((q) => q.rows),
      [
        { acme: 2, globex: 1 },
        { acme: 2, globex: 1 },
      ],
    );
    assert.deepEqual((await admin('SELECT id, tenant_id, amount FROM orders ORDER BY id')).rows, before);
  });

  it('fails a query that errors or cannot be bound, saying the error and for which groups', async () => {
    const sql = 'SELECT * FROM no_such_table;\nSELECT id FROM orders WHERE region = {{ plan }};';
    const result = await check(sql, ['--groups', 'acme,globex']);
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /^- query 1 \(line 1: SELECT \* FROM no_such_table\), groups acme, globex: failed for acme, globex and with no claims: relation "no_such_table" does not exist$/m,
    );
    assert.match(
      result.stdout,
      /^- query 2 \(line 2: .*\), groups acme, globex: failed for acme, globex: cannot bind its placeholders: \{\{ plan \}\}: the user group has no property "plan"$/m,
    );
    assert.match(result.stdout, /^1 +1 +error +error +error /m);
  });

  it('with --include-descendants a group sees its subtree, and a parent sharing rows with its child is not a leak', async () => {
    const result = await check('SELECT tenant, name FROM accounts ORDER BY name', [
      '--groups',
      'acme,acme-emea,globex',
      '--tenant-column',
      'tenant',
      '--include-descendants',
      '--json',
    ]);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(report(result).queries[0]!.rows, { acme: 2, 'acme-emea': 1, globex: 1 });

    // Without the descendants in the claims, acme sees its own rows only: still isolated.
    const own = await check('SELECT tenant, name FROM accounts', ['--groups', 'acme,globex', '--tenant-column', 'tenant', '--json']);
    assert.deepEqual(report(own).queries[0]!.rows, { acme: 1, globex: 1 });
  });

  it('fails rows that reached every group when each carries a per-run value (now()): rows are compared on their key', async () => {
    // The policy lets any session see every row; no claims see none. Every row differs from every other by now().
    const sql = 'SELECT id, body, now() AS read_at FROM notes ORDER BY id';
    const text = await check(sql, ['--groups', 'acme,globex']);
    assert.equal(text.code, 1, text.stdout);
    assert.match(
      text.stdout,
      /^- query 1 \(line 1: SELECT id, body, now\(\) AS read_at FROM notes ORDER BY id\), groups acme, globex: returned the same 2 rows \(by id\) to acme and globex/m,
    );
    assert.doesNotMatch(text.stdout, /^Passed/m);

    // With --tenant-column, the rows are attributed by notes.tenant_id, looked up by the key the query returned.
    const json = report(await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--json']));
    assert.deepEqual(
      json.problems.map((p) => [p.kind, p.groups]),
      [
        ['foreign_tenant', ['acme']],
        ['foreign_tenant', ['globex']],
        ['shared_row', ['acme', 'globex']],
      ],
    );
  });

  it("does not pass an unprotected table that the query filters by ugs.prop(...): not checked without --tenant-column (exit 3), another tenant's rows with it (exit 1)", async () => {
    // acme (eu) receives initech's eu row; globex (us) its own; no claims, no region, nothing. No row reaches both groups.
    const sql = "SELECT id, region, amount FROM sales WHERE region = ugs.prop('region') ORDER BY id";
    const unattributed = await check(sql, ['--groups', 'acme,globex']);
    assert.equal(unattributed.code, 3, unattributed.stdout);
    assert.doesNotMatch(unattributed.stdout, /^Passed/m);
    assert.match(unattributed.stdout, /^query 1 \(line 1\): not checked: no --tenant-column/m);
    assert.deepEqual(errorLines(unattributed.stderr), [
      'ugs: the isolation check could not check 1 of 1 queries for rows of another group (the report on stdout).',
    ]);

    const attributed = await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id']);
    assert.equal(attributed.code, 1, attributed.stdout);
    assert.match(
      attributed.stdout,
      /^- query 1 \(line 1: .*\), group acme: acme received 1 row whose tenant_id is not acme \(e\.g\. tenant_id = "initech", looked up in public\.sales by id\)/m,
    );
  });

  it('claims only what it compared: a query whose rows name no tenant is reported not checked, exit 3, never "Passed"', async () => {
    const sql = 'SELECT id, tenant_id FROM orders ORDER BY id;\nSELECT count(*)::int AS n, sum(amount)::int AS total FROM orders;';
    const result = await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id']);
    assert.equal(result.code, 3, result.stdout);
    assert.match(result.stdout, /^1 +1 +2 +1 +0 +checked +SELECT id, tenant_id FROM orders ORDER BY id$/m);
    assert.match(result.stdout, /^2 +2 +1 +1 +1 +NOT CHECKED +SELECT count/m);
    assert.match(result.stdout, /^query 1 \(line 1\): checked: every row a group received carries its own tenant_id/m);
    assert.match(result.stdout, /^query 2 \(line 2\): not checked: its rows carry no tenant_id/m);
    assert.match(result.stdout, /^Not established: 1 of 2 queries could not be checked for rows of another group/m);
    assert.doesNotMatch(result.stdout, /Passed/);

    const json = report(await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--json']));
    assert.equal(json.passed, false);
    assert.equal(json.outcome, 'not_established');
    assert.deepEqual(
      json.queries.map((q) => q.cross_tenant),
      ['checked', 'not_checked'],
    );
  });

  it('names rows by a composite primary key, to the microsecond, and reads their tenant by it, or under another name', async () => {
    const args = ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--json'];
    const result = await check('SELECT taken_at, sensor, value FROM readings ORDER BY taken_at', args);
    assert.equal(result.code, 0, result.stdout);
    const query = report(result).queries[0]!;
    assert.deepEqual(
      [query.rows, query.key, query.tenant],
      [{ acme: 1, globex: 1 }, ['taken_at', 'sensor'], { column: 'tenant_id', looked_up_in: ['public.readings'] }],
    );

    // The tenant column returned under another name is still the tenant column (PostgreSQL names where it comes from).
    const renamed = report(await check('SELECT tenant_id AS owner, value FROM readings; SELECT o.tenant_id AS owner FROM orders o', args));
    assert.equal(renamed.outcome, 'passed');
    assert.deepEqual(
      renamed.queries.map((q) => q.tenant),
      [
        { column: 'tenant_id', looked_up_in: [] },
        { column: 'tenant_id', looked_up_in: [] },
      ],
    );
  });

  it('reads the groups from a PostgreSQL store alike: the rows carrying now() and the ugs.prop(...) filter are caught there too', async (t) => {
    const store = await createTestDatabase({ migrated: true });
    const onPostgres = await build(t, { postgres: store, secret: env.UGS_SECRET, apiKey: false });
    try {
      await onPostgres.services.userGroups.getOrCreate(WRITER, { userGroupId: 'acme', name: 'Acme', properties: { region: 'eu' } });
      await onPostgres.services.userGroups.getOrCreate(WRITER, { userGroupId: 'globex', name: 'Globex', properties: { region: 'us' } });
      const storeEnv = { DATABASE_URL: store.url };
      const groups = ['--groups', 'acme,globex'];
      const perRun = await check('SELECT id, body, now() AS read_at FROM notes', groups, role.url, storeEnv);
      assert.match(perRun.stderr, /^ugs: store: PostgreSQL /m);
      assert.equal(perRun.code, 1, perRun.stdout);
      assert.match(perRun.stdout, /returned the same 2 rows \(by id\) to acme and globex/);
      const byRegion = "SELECT id, region, amount FROM sales WHERE region = ugs.prop('region')";
      assert.equal((await check(byRegion, groups, role.url, storeEnv)).code, 3);
      const attributed = await check(byRegion, [...groups, '--tenant-column', 'tenant_id'], role.url, storeEnv);
      assert.equal(attributed.code, 1, attributed.stdout);
      assert.match(attributed.stdout, /acme received 1 row whose tenant_id is not acme \(e\.g\. tenant_id = "initech"/);
    } finally {
      await onPostgres.close();
      await store.drop();
    }
  });

  it('exit codes: 0 passed, 1 a problem found, 2 the check could not run, 3 a query could not be checked', async () => {
    const args = ['--groups', 'acme,globex', '--tenant-column', 'tenant_id'];
    assert.equal((await check('SELECT id, tenant_id FROM orders', args)).code, 0);
    assert.equal((await check('SELECT id, tenant_id FROM unguarded', args)).code, 1);
    assert.equal((await check('SELECT count(*) FROM orders', args)).code, 3);
    const file = join(files, 'codes.sql');
    writeFileSync(file, 'SELECT 1;');
    const run = (extra: string[]) => sandbox.ugsProcess(dir, ['isolation-check', '--queries', file, ...extra], env);
    for (const usage of [
      await run(['--database', role.url, '--groups', 'acme', '--no-such-option']),
      await run(['--database', role.url]),
      await run(['--database', 'not a url', '--groups', 'acme']),
      await run(['--database', role.url, '--groups', 'nobody']),
      await run(['--database', bypass.url, '--groups', 'acme']),
      await run(['--database', 'postgres://someone:pw@127.0.0.1:1/shop', '--groups', 'acme']),
    ])
      assert.equal(usage.code, 2, usage.stderr);
    const noStore = join(files, 'no-such-data-dir');
    const missing = await sandbox.ugsProcess(
      noStore,
      ['isolation-check', '--queries', file, '--database', role.url, '--groups', 'acme'],
      env,
    );
    assertOneLineFailure(missing, [`No store in ${noStore}`]);
    assert.equal(missing.code, 2);
    assert.equal(existsSync(noStore), false);
  });

  it('refuses bad arguments in one line before connecting: no file, no query, no group, an unknown group, a bad URL, transaction control', async () => {
    const unreachable = 'postgres://someone:hunter2secret@127.0.0.1:1/shop';
    const run = (args: string[]) => sandbox.ugsProcess(dir, ['isolation-check', ...args], env);
    const file = join(files, 'one.sql');
    writeFileSync(file, 'SELECT 1;');

    assertOneLineFailure(await run(['--database', unreachable, '--queries', join(files, 'missing.sql'), '--groups', 'acme']), [
      /^ugs: cannot read --queries .*missing\.sql: ENOENT/m,
    ]);
    assertOneLineFailure(await check('-- nothing; here\n;;\n', ['--groups', 'acme'], unreachable), [/holds no query/]);
    assertOneLineFailure(await check('SELECT 1;\n/* why */ COMMIT;', ['--groups', 'acme'], unreachable), [
      'ugs: query 2 (line 2: /* why */ COMMIT) begins or ends a transaction',
    ]);
    assertOneLineFailure(await run(['--database', unreachable, '--queries', file, '--groups', ' , ']), ['--groups names no group']);
    assertOneLineFailure(await run(['--database', 'not a url', '--queries', file, '--groups', 'acme']), ['--database is not a URL']);
    const mysql = await run(['--database', 'mysql://someone:hunter2secret@h/db', '--queries', file, '--groups', 'acme']);
    assertOneLineFailure(mysql, ['--database must be a postgres:// or postgresql:// URL, not mysql://someone:****@h/db']);

    const unknown = await check('SELECT 1', ['--groups', 'acme,nobody'], unreachable);
    assertOneLineFailure(unknown, [/^ugs: No user group with "user_group_id" "nobody" exists in the Customer environment/m]);
    assert.doesNotMatch(unknown.stderr, /connect/, 'the groups are read before connecting anywhere');

    const refused = await check('SELECT 1', ['--groups', 'acme'], unreachable);
    assertOneLineFailure(refused, ['ugs: cannot connect to postgres://someone:****@127.0.0.1:1/shop: ']);
    for (const result of [mysql, unknown, refused]) assert.ok(!result.stderr.includes('hunter2secret'), result.stderr);
  });
});
