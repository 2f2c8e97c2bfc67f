import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startDashboardServer, type DashboardServer } from '../../examples/dashboard/dashboard-server.js';
import { demoOrderRows } from '../../examples/dashboard/demo-orders.js';
import { openPostgresOrders } from '../../examples/dashboard/postgres-orders.js';
import { setUpPostgresOrders } from '../../examples/dashboard/postgres-orders-setup.js';
import { UserGroupClient } from '../../src/client/user-group-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { dropRole } from '../helpers/postgres-roles.js';
import { buildForSuite } from '../helpers/build.js';

/**
 * The example dashboard in PostgreSQL mode, through its HTTP, without a browser: a real service mints the sessions, the
 * dashboard verifies them and queries PostgreSQL as its role under row-level security. Its pages are the SQLite mode's,
 * byte for byte, for the README's groups.
 */
describe('example dashboard, PostgreSQL mode: the pages of minted sessions', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await onPostgres?.close();
    await onSqlite?.close();
    if (role) await dropRole(database.url, role);
    await database?.drop();
  });
  const service = buildForSuite({ apiKey: false });
  let database: TestDatabase;
  let role: string;
  let onPostgres: DashboardServer;
  let onSqlite: DashboardServer;
  let client: UserGroupClient;
  before(async () => {
    database = await createTestDatabase();
    const setup = await setUpPostgresOrders(database.url, { role: `ugs_example_${randomBytes(5).toString('hex')}` });
    role = setup.role;
    const { key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: service.url, apiKey: key, retries: 0 });
    for (const [id, name, region] of [
      ['acme', 'Acme', 'eu'],
      ['globex', 'Globex', 'us'],
      ['hooli', 'Hooli', undefined],
    ] as const) {
      await client.getOrCreate({ user_group_id: id, name, ...(region === undefined ? {} : { properties: { region } }) });
    }
    const orders = openPostgresOrders(new pg.Pool({ connectionString: setup.url, max: 2 }));
    onPostgres = await startDashboardServer({ serviceUrl: service.url, apiKey: key, revocationPollMs: 50, orders });
    onSqlite = await startDashboardServer({ serviceUrl: service.url, apiKey: key, revocationPollMs: 50 });
  });

  const mint = async (group: string, viewer?: string) =>
    (
      await client.mintEmbedSession({
        user_group_id: group,
        ...(viewer === undefined ? {} : { viewer: { id: viewer, attributes: { sales_rep: viewer } } }),
      })
    ).token;
  const get = async (dashboard: DashboardServer, path: string, token: string) => {
    const res = await fetch(`${dashboard.url}${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`);
    return { status: res.status, html: await res.text() };
  };
  const rowIds = (html: string) => [...html.matchAll(/<th scope="row">(\d+)<\/th>/g)].map((match) => Number(match[1]));
  const idsOf = (region: string, rep?: string) =>
    demoOrderRows().flatMap((row) => (row.region === region && (rep === undefined || row.sales_rep === rep) ? [row.id] : []));

  it("each group's page shows its own orders, the same page as the SQLite mode's", async () => {
    for (const [group, region] of [
      ['acme', 'eu'],
      ['globex', 'us'],
    ] as const) {
      const token = await mint(group);
      const page = await get(onPostgres, '/', token);
      assert.equal(page.status, 200, page.html);
      assert.deepEqual(rowIds(page.html), idsOf(region), group);
      assert.match(page.html, new RegExp(`<h1>Orders in ${region}</h1>`));
      assert.deepEqual(page, await get(onSqlite, '/', token), `${group}: the PostgreSQL page is the SQLite page`);
    }
  });

  it("a viewer's page and the filtered table: the rep's orders of the group", async () => {
    const token = await mint('acme', 'ana');
    const page = await get(onPostgres, '/', token);
    assert.deepEqual(rowIds(page.html), idsOf('eu', 'ana'));
    assert.match(page.html, /<caption>Orders of sales rep ana in region eu, oldest first<\/caption>/);
    assert.deepEqual(page, await get(onSqlite, '/', token));
    const filtered = await get(onPostgres, '/orders?product=Team%20plan', token);
    assert.equal(filtered.status, 200);
    assert.deepEqual(filtered, await get(onSqlite, '/orders?product=Team%20plan', token));
  });

  it('a group the table has no orders of sees none (no region needed: the policy reads the group, not a property)', async () => {
    const token = await mint('hooli');
    const page = await get(onPostgres, '/', token);
    assert.equal(page.status, 200);
    assert.deepEqual(rowIds(page.html), []);
    assert.match(page.html, /<h1>Orders of Hooli<\/h1>/);
    assert.match(page.html, /No orders of Hooli\./);
    // The SQLite mode's queries need the region and refuse, closed.
    assert.equal((await get(onSqlite, '/', token)).status, 403);
  });
});
