import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postgresPolicySql, tablePolicySql } from 'user-group-service/embed';
import type { Principal } from '../../src/api-keys/api-key.js';
import type { CliResult } from '../helpers/cli.js';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
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
  role: string;
  groups: string[];
  queries: { query: number; line: number; first_line: string; rows: Record<string, number | null>; rows_without_claims: number | null }[];
  problems: { query: number; line: number; first_line: string; kind: string; groups: string[]; message: string }[];
}

describe('ugs isolation-check', () => {
  const sandbox = new Sandbox();
  const dir = sandbox.dir('ugs-isolation');
  const files = sandbox.dir('ugs-isolation-queries');
  const env = { UGS_SECRET: randomBytes(32).toString('hex') };
  let server: TestServer;
  let database: TestDatabase;
  let role: TestRole;
  let bypass: TestRole;
  const passwordOf = (url: string) => new URL(url).password;

  /** Writes the queries to a file and runs the check on it as `url`'s role. */
  const check = async (sql: string, args: string[], url = role.url): Promise<CliResult> => {
    const file = join(files, `${randomBytes(4).toString('hex')}.sql`);
    writeFileSync(file, sql);
    const result = await sandbox.ugsProcess(dir, ['isolation-check', '--database', url, '--queries', file, ...args], env);
    assert.ok(!result.stderr.includes(STACK_LINE), result.stderr);
    for (const secret of [passwordOf(url), passwordOf(database.url)].filter((p) => p !== ''))
      assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), 'the database password is never printed');
    return result;
  };
  const report = (result: CliResult) => JSON.parse(result.stdout) as JsonReport;
  const admin = (sql: string, values: unknown[] = []) => adminQuery(database.url, sql, values);

  before(async () => {
    server = await startTestServer({ dataDir: dir, secret: env.UGS_SECRET, kind: 'sqlite' });
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
      GRANT SELECT, INSERT, UPDATE, DELETE ON orders, unguarded, invoices, accounts TO ${role.name}, ${bypass.name};
    `);
  });
  after(async () => {
    await server?.close();
    await role?.drop();
    await bypass?.drop();
    await database?.drop();
    await sandbox.cleanup();
  });

  const ORDERS = `-- The group's orders: no tenant clause, the policy keeps the others out.
SELECT id, tenant_id, amount FROM orders ORDER BY id;

SELECT id, tenant_id, 'a;b' AS "x;y", $body$ ; $body$ AS dollar /* ; */
  FROM orders WHERE region = {{ region }};
-- a comment after the last query; with a semicolon
`;

  it('passes the correct setup: each group sees its own rows, no claims see none; exit 0 with a summary', async () => {
    const text = await check(ORDERS, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`^Ran 2 queries × 2 groups \\(acme, globex\\) and with no claims, as role ${role.name} on postgres://`),
    );
    assert.match(text.stdout, /^QUERY +LINE +ACME +GLOBEX +NO CLAIMS +TENANT_ID +FIRST LINE$/m);
    assert.match(text.stdout, /^1 +2 +2 +1 +0 +checked +SELECT id, tenant_id, amount FROM orders ORDER BY id$/m);
    assert.match(text.stdout, /^2 +4 +2 +1 +0 +checked +SELECT id, tenant_id, 'a;b'/m);
    assert.match(
      text.stdout,
      /^Passed: no query returned rows with no claims, rows of another group by tenant_id, or the same row for two groups\.$/m,
    );
    assert.deepEqual(errorLines(text.stderr), []);

    const json = await check(ORDERS, ['--groups', 'acme,globex', '--json']);
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

  it('fails a table without a policy: rows with no claims, and the same rows for both groups, naming the query and the groups', async () => {
    const sql = 'SELECT id, tenant_id FROM orders;\nSELECT id, tenant_id\n  FROM unguarded;';
    const text = await check(sql, ['--groups', 'acme,globex']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^Failed: 2 problems\.$/m);
    assert.match(text.stdout, /^- query 2 \(line 2: SELECT id, tenant_id\): returned 2 rows with no claims set \(e\.g\. \[\d,"\w+"\]\)/m);
    assert.match(
      text.stdout,
      /^- query 2 \(line 2: SELECT id, tenant_id\), groups acme, globex: returned the same 2 rows to acme and globex/m,
    );
    assert.doesNotMatch(text.stdout, /^- query 1 /m, 'the guarded table passes');
    assert.deepEqual(errorLines(text.stderr), ['ugs: the isolation check failed: 2 problems in 1 of 2 queries (the report on stdout).']);

    const json = report(await check(sql, ['--groups', 'acme,globex', '--tenant-column', 'tenant_id', '--json']));
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
    assert.equal(bypassing.code, 1);
    assert.equal(bypassing.stdout, '');

    const superuser = await check('SELECT id, tenant_id FROM orders', ['--groups', 'acme,globex'], database.url);
    assertOneLineFailure(superuser, [
      /ugs: refusing to check as role "[^"]+": it is a superuser, and such a role ignores row-level security/,
    ]);
    assert.equal(superuser.code, 1);
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
