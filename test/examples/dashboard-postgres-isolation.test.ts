import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Principal } from '../../src/kernel/principal.js';
import { splitStatements } from '../../src/isolation/sql-statements.js';
import { POSTGRES_QUERIES } from '../../examples/dashboard/postgres-orders.js';
import { setUpPostgresOrders } from '../../examples/dashboard/postgres-orders-setup.js';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { dropRole } from '../helpers/postgres-roles.js';
import { buildForSuite } from '../helpers/build.js';
import { Sandbox } from '../cli/cli-support.js';

/**
 * `ugs isolation-check` on the example dashboard's own setup (issue 31): the
 * queries in examples/dashboard/orders.sql are the ones the dashboard runs, and
 * the check finds every row they return to be the viewing group's on the table
 * its setup makes, as the role it makes, the totals too (per tenant, each naming
 * it); with row-level security turned off, the same check fails.
 */

const WRITER: Principal = { keyId: 'test', environment: 'Customer', access: 'read-write' };
const QUERIES = fileURLToPath(new URL('../../../examples/dashboard/orders.sql', import.meta.url));

describe('ugs isolation-check on the example dashboard (--postgres)', () => {
  const sandbox = new Sandbox();
  const dir = sandbox.dir('ugs-example-isolation');
  const env = { UGS_SECRET: randomBytes(32).toString('hex') };
  const server = buildForSuite({ dataDir: dir, secret: env.UGS_SECRET, kind: 'sqlite', apiKey: false });
  let database: TestDatabase;
  let role: string;
  let roleUrl: string;
  const admin = (sql: string) => adminQuery(database.url, sql);
  const check = () =>
    sandbox.ugsProcess(
      dir,
      [
        'isolation-check',
        '--database',
        roleUrl,
        '--queries',
        QUERIES,
        '--groups',
        'acme,globex,initech,hooli',
        '--tenant-column',
        'tenant_id',
        '--json',
      ],
      env,
    );

  before(async () => {
    for (const [id, region] of [
      ['acme', 'eu'],
      ['globex', 'us'],
      ['initech', 'apac'],
      ['hooli', 'eu'],
    ] as const)
      await server.services.userGroups.getOrCreate(WRITER, { userGroupId: id, name: id, properties: { region } });
    database = await createTestDatabase();
    const setup = await setUpPostgresOrders(database.url, { role: `ugs_example_${randomBytes(5).toString('hex')}` });
    role = setup.role;
    roleUrl = setup.url;
  });

  after(async () => {
    if (role) await dropRole(database.url, role);
    await database?.drop();
    await sandbox.cleanup();
  });

  it('orders.sql holds exactly the queries the dashboard runs', () => {
    const inFile = splitStatements(readFileSync(QUERIES, 'utf8')).map((statement) =>
      statement.text.replace(/^(\s*--[^\n]*\n)*/, '').trim(),
    );
    const run = Object.values(POSTGRES_QUERIES).flatMap((queries) => [queries.rows, queries.totals]);
    assert.deepEqual(inFile, run);
  });

  it('checks the example: every row each group received is its own (orders.tenant_id, by id), and so is every total (by its tenant_id): exit 0', async () => {
    const result = await check();
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as {
      passed: boolean;
      outcome: string;
      problems: unknown[];
      queries: {
        rows: Record<string, number>;
        rows_without_claims: number;
        cross_tenant: string;
        key: string[] | null;
        tenant: { column: string; looked_up_in: string[] } | null;
        not_checked_because: string | null;
      }[];
    };
    assert.equal(report.passed, true);
    assert.equal(report.outcome, 'passed');
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.queries[0]!.rows, { acme: 12, globex: 12, initech: 8, hooli: 0 }, "cleo's 4 apac orders are initech-labs'");
    assert.equal(report.queries[0]!.rows_without_claims, 0);
    // The rows name no tenant: each is looked up in orders by the id the query returns.
    assert.deepEqual([report.queries[0]!.cross_tenant, report.queries[0]!.key], ['checked', ['id']]);
    assert.deepEqual(report.queries[0]!.tenant, { column: 'tenant_id', looked_up_in: ['public.orders'] });
    // The totals: one row per tenant the group sees, naming it (none where there is nothing to count), checked like the rows.
    assert.deepEqual(report.queries[1]!.rows, { acme: 1, globex: 1, initech: 1, hooli: 0 });
    assert.equal(report.queries[1]!.rows_without_claims, 0);
    assert.deepEqual([report.queries[1]!.cross_tenant, report.queries[1]!.not_checked_because], ['checked', null]);
    // A sales rep's queries: no group's claims hold a sales_rep, so none receives a row.
    assert.deepEqual(
      report.queries.slice(2).map((q) => [q.cross_tenant, Object.values(q.rows)]),
      [
        ['checked', [0, 0, 0, 0]],
        ['checked', [0, 0, 0, 0]],
      ],
    );
  });

  it('fails it once row-level security is off: the queries return every group’s rows with no claims', async () => {
    await admin('ALTER TABLE orders DISABLE ROW LEVEL SECURITY');
    try {
      const result = await check();
      assert.equal(result.code, 1, result.stdout);
      const report = JSON.parse(result.stdout) as { passed: boolean; problems: { query: number; kind: string; groups: string[] }[] };
      assert.equal(report.passed, false);
      assert.ok(report.problems.some((p) => p.query === 1 && p.kind === 'rows_without_claims'));
      assert.ok(
        report.problems.some((p) => p.query === 2 && p.kind === 'rows_without_claims'),
        'the totals over every row are a leak',
      );
      assert.ok(
        report.problems.some((p) => p.query === 1 && p.kind === 'shared_row' && p.groups.includes('acme') && p.groups.includes('globex')),
      );
      assert.ok(report.problems.some((p) => p.query === 1 && p.kind === 'foreign_tenant' && p.groups[0] === 'hooli'));
    } finally {
      await admin('ALTER TABLE orders ENABLE ROW LEVEL SECURITY');
    }
  });
});
