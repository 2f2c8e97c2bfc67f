import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDataRouter, type DataRouter, type EmbedClaims } from 'user-group-service/embed';
import { startCustomerApp, type CustomerApp } from '../../examples/dashboard/customer-app.js';
import { startDashboardServer, type DashboardServer } from '../../examples/dashboard/dashboard-server.js';
import { demoOrderRows } from '../../examples/dashboard/demo-orders.js';
import { registerExampleDataSources } from '../../examples/dashboard/example-data-sources.js';
import { openRoutedOrders } from '../../examples/dashboard/postgres-orders.js';
import { tenantOf } from '../../examples/dashboard/postgres-orders-setup.js';
import {
  isolationCheckCommands,
  ORDERS_SCHEMA,
  setUpRoutedDatabases,
  type RoutedSetup,
} from '../../examples/dashboard/routed-databases.js';
import { UserGroupClient } from '../../src/client/user-group-client.js';
import { Sandbox } from '../cli/cli-support.js';
import { buildForSuite } from '../helpers/build.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { dropRole } from '../helpers/postgres-roles.js';
import { waitFor } from '../embed/fake-embed-service.js';

/** The repository root, from dist/test/examples/: where the printed commands are pasted. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The example's --postgres mode routes by mapping (issue 39, item 8): acme and globex each in a database of their
 * own, initech and its sub-group initech-labs in a shared one under row policies, each a data source of a real
 * service, every group's mapping naming its own; the dashboard's queries go through a data router holding a
 * dashboard key, on real PostgreSQL. The policy admits a group's subtree: initech's sessions minted with
 * include_descendants (as the example's app mints them) see initech-labs' orders too. `ugs isolation-check
 * --data-source` runs on each data source, as the example prints it.
 */
describe('example dashboard, routed by mapping over three PostgreSQL databases', () => {
  after(async () => {
    await app?.close();
    await dashboard?.close();
    if (admin) {
      for (const { database } of setup?.databases ?? []) await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      if (setup) await dropRole(admin.url, setup.role);
      await admin.drop();
    }
  });
  const sandbox = new Sandbox();
  // A store `ugs isolation-check` reads as the service has it: its data dir and secret.
  const dataDir = sandbox.dir('ugs-example-routed');
  const cliEnv = { UGS_SECRET: randomBytes(32).toString('hex') };
  const service = buildForSuite({ dataDir, secret: cliEnv.UGS_SECRET, kind: 'sqlite', apiKey: false });
  // Registered after the service's own: its data dir goes once the service has stopped.
  after(() => sandbox.cleanup());
  let admin: TestDatabase;
  let setup: RoutedSetup;
  let client: UserGroupClient;
  let router: DataRouter;
  let dashboard: DashboardServer;
  let app: CustomerApp;
  const prefix = `t${randomBytes(4).toString('hex')}_`;
  const adminQuery = async (sql: string) => {
    const connection = new pg.Client(admin.url);
    await connection.connect();
    try {
      return await connection.query(sql);
    } finally {
      await connection.end();
    }
  };

  before(async () => {
    admin = await createTestDatabase();
    const writer = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const reader = await service.services.apiKeys.create({ environment: 'Customer', access: 'dashboard' });
    client = new UserGroupClient({ baseUrl: service.url, apiKey: writer.key, retries: 0 });
    const role = `ugs_example_${randomBytes(5).toString('hex')}`;
    // Twice, as two starts of the example do: databases reused, the role's password new, the data sources brought up to date.
    for (let start = 0; start < 2; start++) {
      setup = await setUpRoutedDatabases(admin.url, { role, prefix });
      await registerExampleDataSources(client, setup);
    }
    await client.getOrCreate({ user_group_id: 'hooli', name: 'Hooli' });
    router = createDataRouter({ serviceUrl: service.url, apiKey: reader.key, refreshMs: 50 });
    dashboard = await startDashboardServer({
      serviceUrl: service.url,
      apiKey: writer.key,
      revocationPollMs: 50,
      orders: openRoutedOrders(router),
    });
    // As main.ts starts it in --postgres mode.
    app = await startCustomerApp({ serviceUrl: service.url, apiKey: writer.key, dashboardUrl: dashboard.url, includeDescendants: true });
  });

  // The claims a session minted now would carry, as `ugs isolation-check` reads them (properties are stored JSON).
  const claimsOf = async (group: string, includeDescendants = false) =>
    (await service.services.embedSessions.sessionClaims({ keyId: 'test', environment: 'Customer', access: 'read-write' }, group, {
      includeDescendants,
    })) as unknown as EmbedClaims;
  const idsOf = (...tenants: string[]) => demoOrderRows().flatMap((row) => (tenants.includes(tenantOf(row)) ? [row.id] : []));
  const sorted = (ids: readonly number[]) => [...ids].sort((a, b) => a - b);
  // The order ids a dashboard page lists, in id order.
  const rowsOnPage = async (res: Response) =>
    sorted([...(await res.text()).matchAll(/<th scope="row">(\d+)<\/th>/g)].map((m) => Number(m[1])));

  it('registers each database as a data source, idempotently, and maps the groups (initech-labs inherits from initech)', async () => {
    const sources = await client.dataSources.list();
    assert.deepEqual(
      sources.data_sources.map((s) => [s.id, s.connection.database, s.password_set, s.version]),
      [
        ['example-acme', `${prefix}ugs_example_acme`, true, 2],
        ['example-globex', `${prefix}ugs_example_globex`, true, 2],
        ['example-shared', `${prefix}ugs_example_shared`, true, 2],
      ],
      'the second start changed the password: one more version each',
    );
    const labs = await client.get('initech-labs');
    assert.deepEqual(labs.resolved_mapping, [
      {
        schema: ORDERS_SCHEMA,
        value: 'example-shared',
        from_user_group_id: 'initech',
        inherited: true,
        data_source: { id: 'example-shared', name: 'Shared (row policies)', kind: 'postgresql' },
      },
    ]);
  });

  it("takes each group's session to its own database, and in the shared one to its own rows", async () => {
    const expected: [string, string][] = [
      ['acme', 'ugs_example_acme'],
      ['globex', 'ugs_example_globex'],
      ['initech', 'ugs_example_shared'],
      ['initech-labs', 'ugs_example_shared'],
    ];
    for (const [group, database] of expected) {
      const claims = await claimsOf(group);
      const where = await router.run(
        claims,
        ORDERS_SCHEMA,
        async (c) => (await c.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db,
      );
      assert.equal(where, `${prefix}${database}`, group);
      const view = await openRoutedOrders(router).viewFor(claims);
      assert.deepEqual(
        view.rows.map((row) => row.id),
        idsOf(group),
        `${group} sees its own orders`,
      );
    }
    assert.equal(idsOf('initech-labs').length, 4);
  });

  it("admits a group's subtree in the shared database: initech's sessions with include_descendants see initech-labs' orders too", async () => {
    const viaRouter = async (group: string) =>
      sorted((await openRoutedOrders(router).viewFor(await claimsOf(group, true))).rows.map((r) => r.id));
    assert.deepEqual(await viaRouter('initech'), sorted(idsOf('initech', 'initech-labs')));
    assert.deepEqual(await viaRouter('initech-labs'), sorted(idsOf('initech-labs')), 'a sub-group never sees its parent’s');
    assert.deepEqual(await viaRouter('acme'), sorted(idsOf('acme')));
    // The pages the example's app frames: its sessions carry the group's descendants in this mode.
    for (const [group, ids] of [
      ['initech', idsOf('initech', 'initech-labs')],
      ['initech-labs', idsOf('initech-labs')],
    ] as const) {
      const appPage = await (await fetch(`${app.url}/?group=${group}`)).text();
      const frame = /<iframe title="Orders dashboard" src="([^"]+)"/.exec(appPage)?.[1]?.replaceAll('&amp;', '&');
      assert.ok(frame?.startsWith(`${dashboard.url}/?token=`), `${group}: ${appPage}`);
      const res = await fetch(frame!);
      assert.equal(res.status, 200, group);
      assert.deepEqual(await rowsOnPage(res), sorted(ids), group);
    }
  });

  it('checks each data source with ugs isolation-check --data-source, as the example prints it: its groups and their descendants, nothing crossed', async () => {
    const queries = fileURLToPath(new URL('../../../examples/dashboard/orders.sql', import.meta.url));
    const expected: [string, Record<string, number>][] = [
      ['example-acme', { acme: 12 }],
      ['example-globex', { globex: 12 }],
      ['example-shared', { initech: 12, 'initech-labs': 4 }],
    ];
    for (const [dataSource, rows] of expected) {
      const args = ['--data-source', dataSource, '--queries', queries, '--tenant-column', 'tenant_id', '--include-descendants', '--json'];
      const result = await sandbox.ugsProcess(dataDir, ['isolation-check', ...args], cliEnv);
      // Every query checked, the totals too (per tenant): every row its group's or a descendant's, nothing crossed.
      assert.equal(result.code, 0, `${dataSource}: ${result.stdout}\n${result.stderr}`);
      assert.ok(!`${result.stdout}${result.stderr}`.includes(setup.password), 'the password is never printed');
      const report = JSON.parse(result.stdout) as {
        outcome: string;
        problems: unknown[];
        queries: { rows: Record<string, number>; rows_without_claims: number; cross_tenant: string }[];
      };
      assert.equal(report.outcome, 'passed', dataSource);
      assert.deepEqual(report.problems, [], dataSource);
      assert.deepEqual(report.queries[0]!.rows, rows, dataSource);
      assert.deepEqual([report.queries[0]!.rows_without_claims, report.queries[0]!.cross_tenant], [0, 'checked'], dataSource);
    }
  });

  it('runs the isolation checks exactly as the example prints them, at the repository root: each succeeds (exit 0)', async (t) => {
    const commands = isolationCheckCommands(setup);
    assert.equal(commands.length, 3);
    for (const command of commands) {
      const [npx, ugs, ...args] = command.split(' ');
      assert.deepEqual([npx, ugs], ['npx', 'ugs'], command);
      const result = await sandbox.ugsProcess(dataDir, args, cliEnv, { cwd: REPO_ROOT });
      assert.equal(result.code, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      assert.doesNotMatch(result.stderr, /error|refus|cannot/i, command);
      assert.match(result.stdout, /^Ran 4 queries × \d+ groups? \(.*\) and with no claims, as role \S+ on postgres:\/\/[^:@]+@/m, command);
      assert.match(result.stdout, /^Passed: /m, command);
      assert.ok(!result.stdout.includes(setup.password), 'the password is never printed');
      t.diagnostic(`${command}\n${result.stdout}`);
    }
  });

  it('answers a group whose mapping names no data source for the orders with a page saying so, running no query', async () => {
    const { token } = await client.mintEmbedSession({ user_group_id: 'hooli' });
    const res = await fetch(`${dashboard.url}/?token=${encodeURIComponent(token)}`);
    assert.equal(res.status, 403);
    assert.match(await res.text(), /not routed to a database \(unknown_schema\)/);
    const acme = await client.mintEmbedSession({ user_group_id: 'acme' });
    const page = await fetch(`${dashboard.url}/?token=${encodeURIComponent(acme.token)}`);
    assert.equal(page.status, 200);
    assert.deepEqual(await rowsOnPage(page), sorted(idsOf('acme')));
  });

  it('follows a data source changed or removed (as the README has you try): a wrong password is a 503, a removed one a 403, no query run', async () => {
    const { token } = await client.mintEmbedSession({ user_group_id: 'acme' });
    const status = async () => (await fetch(`${dashboard.url}/?token=${encodeURIComponent(token)}`)).status;
    await client.dataSources.update('example-acme', { connection: { password: 'wrong' } });
    await waitFor('acme refused by its database', async () => (await status()) === 503);
    await client.dataSources.update('example-acme', { connection: { password: setup.password } });
    await waitFor('acme served again', async () => (await status()) === 200);
    const globex = await client.mintEmbedSession({ user_group_id: 'globex' });
    await client.dataSources.remove('example-globex', { force: true });
    let page = '';
    await waitFor('globex no longer routed', async () => {
      const res = await fetch(`${dashboard.url}/?token=${encodeURIComponent(globex.token)}`);
      page = await res.text();
      return res.status === 403;
    });
    assert.match(page, /unresolved_data_source/);
  });
});
