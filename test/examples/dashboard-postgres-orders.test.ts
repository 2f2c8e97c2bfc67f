import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { withSessionClaims } from 'user-group-service/embed';
import { demoOrderRows, type DemoOrders, type OrdersClaims } from '../../examples/dashboard/demo-orders.js';
import { openPostgresOrders, POSTGRES_QUERIES } from '../../examples/dashboard/postgres-orders.js';
import { REGION_TENANTS, setUpPostgresOrders } from '../../examples/dashboard/postgres-orders-setup.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { dropRole } from '../helpers/postgres-roles.js';

/**
 * The example dashboard's PostgreSQL mode on real PostgreSQL: its setup, and its queries, which carry no tenant clause,
 * run as the role it makes (not superuser, not BYPASSRLS, not the owner) on a table with FORCE ROW LEVEL SECURITY.
 */

const claims = (sub: string, props: Record<string, string> = {}): OrdersClaims => ({ sub, tid: 1, props });
/** A viewer's session as the service mints it: props the attributes over the group's properties (none here), gprops the group's own. */
const viewerClaims = (sub: string, attributes: Record<string, string>): OrdersClaims => ({
  sub,
  tid: 1,
  vid: 'viewer',
  props: attributes,
  vat: attributes,
  gprops: {},
});
const idsOf = (region: string) => demoOrderRows().flatMap((row) => (row.region === region ? [row.id] : []));
const ALL_QUERIES = Object.values(POSTGRES_QUERIES).flatMap((queries) => Object.values(queries));
const roleName = () => `ugs_example_${randomBytes(5).toString('hex')}`;

describe('example dashboard, PostgreSQL mode: the orders a session sees', () => {
  let database: TestDatabase;
  let role: string;
  let pool: pg.Pool;
  let orders: DemoOrders;
  before(async () => {
    database = await createTestDatabase();
    const setup = await setUpPostgresOrders(database.url, { role: roleName() });
    role = setup.role;
    // One connection: every query below reuses the one the orders source used before it.
    pool = new pg.Pool({ connectionString: setup.url, max: 1 });
    orders = openPostgresOrders(pool);
  });
  after(async () => {
    await orders?.close();
    if (role) await dropRole(database.url, role);
    await database?.drop();
  });

  it('connects as a role that policies bind, to a table whose policy is forced', async () => {
    const { rows } = await pool.query(`SELECT current_user AS me, r.rolsuper, r.rolbypassrls, c.relrowsecurity, c.relforcerowsecurity,
        pg_get_userbyid(c.relowner) = current_user AS owns
      FROM pg_roles r, pg_class c WHERE r.rolname = current_user AND c.oid = 'orders'::regclass`);
    assert.deepEqual(rows, [
      { me: role, rolsuper: false, rolbypassrls: false, relrowsecurity: true, relforcerowsecurity: true, owns: false },
    ]);
    // The totals return and group by the tenant (so the isolation check can tell whose each is); no query filters by it.
    assert.ok(
      ALL_QUERIES.every(
        (sql) => !/tenant/i.test(sql.replace(/^SELECT tenant_id, /, 'SELECT ').replace(/ GROUP BY tenant_id ORDER BY tenant_id$/, '')),
      ),
      'no query filters by the tenant',
    );
  });

  it("the queries, with no tenant clause, return only the session group's rows: two groups, different rows", async () => {
    const acme = await orders.viewFor(claims('acme'));
    const globex = await orders.viewFor(claims('globex'));
    assert.deepEqual(
      acme.rows.map((row) => row.id),
      idsOf('eu'),
    );
    assert.deepEqual(
      globex.rows.map((row) => row.id),
      idsOf('us'),
    );
    assert.equal(acme.region, 'eu');
    assert.equal(globex.region, 'us');
    assert.deepEqual(acme.totals, { orders: 12, revenue_cents: acme.rows.reduce((sum, row) => sum + row.amount_cents, 0) });
    // initech's sub-group initech-labs owns cleo's apac orders (tenantOf): the policy keeps them apart too.
    const apac = demoOrderRows().filter((row) => row.region === 'apac');
    assert.deepEqual(
      (await orders.viewFor(claims('initech'))).rows.map((row) => row.id),
      apac.filter((row) => row.sales_rep !== 'cleo').map((row) => row.id),
    );
    assert.deepEqual(
      (await orders.viewFor(claims('initech-labs'))).rows.map((row) => row.id),
      apac.filter((row) => row.sales_rep === 'cleo').map((row) => row.id),
    );
    // A group the table has no rows of sees none, whatever its properties say.
    const other = await orders.viewFor(claims('hooli', { region: 'eu' }));
    assert.deepEqual([other.rows, other.totals, other.region], [[], { orders: 0, revenue_cents: 0 }, null]);
    assert.deepEqual(REGION_TENANTS, { eu: 'acme', us: 'globex', apac: 'initech' });
  });

  it('no claims, no rows: the same queries on a plain pool connection', async () => {
    for (const sql of ALL_QUERIES) {
      const { rows } = await pool.query(sql);
      assert.ok(rows.length === 0 || (rows.length === 1 && rows[0].orders === 0), `${sql}: ${JSON.stringify(rows)}`);
    }
    assert.equal((await pool.query('SELECT count(*)::int AS n FROM orders')).rows[0].n, 0);
  });

  it('a connection reused from the pool after withSessionClaims carries no claims', async () => {
    const pid = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    assert.equal((await orders.viewFor(claims('acme'))).rows.length, 12);
    const { rows } = await pool.query(`SELECT pg_backend_pid() AS pid, ugs.claims() AS claims, ugs.user_group_id() AS g`);
    assert.deepEqual(rows, [{ pid, claims: null, g: null }], 'the same connection, no claims left on it');
    assert.deepEqual((await pool.query(POSTGRES_QUERIES.group.rows)).rows, []);
    // And after a query that failed inside the transaction.
    await assert.rejects(
      withSessionClaims(await pool.connect(), claims('acme'), async (client) => {
        try {
          await client.query('SELECT 1/0');
        } finally {
          client.release();
        }
      }),
      /division by zero/,
    );
    assert.deepEqual((await pool.query(POSTGRES_QUERIES.group.rows)).rows, []);
  });

  it("the viewer's sales_rep attribute narrows further, through ugs.viewer_prop('sales_rep') in the query", async () => {
    const ana = await orders.viewFor(viewerClaims('acme', { sales_rep: 'ana' }));
    const ben = await orders.viewFor(viewerClaims('acme', { sales_rep: 'ben' }));
    const globexAna = await orders.viewFor(viewerClaims('globex', { sales_rep: 'ana' }));
    for (const [view, region, rep] of [
      [ana, 'eu', 'ana'],
      [ben, 'eu', 'ben'],
      [globexAna, 'us', 'ana'],
    ] as const) {
      assert.equal(view.salesRep, rep);
      assert.deepEqual(
        view.rows.map((row) => row.id),
        demoOrderRows().flatMap((row) => (row.region === region && row.sales_rep === rep ? [row.id] : [])),
      );
      assert.equal(view.rows.length, 4);
      assert.equal(view.totals.orders, 4);
    }
    for (const rep of ["ana' OR '1'='1", 'ana OR 1=1']) {
      assert.deepEqual((await orders.viewFor(viewerClaims('acme', { sales_rep: rep }))).rows, [], rep);
    }
  });

  it('an index on the tenant column serves the policy', async () => {
    const plan = await withSessionClaims(await pool.connect(), claims('acme'), async (client) => {
      try {
        // The demo table is small enough that a scan is cheaper; forbidding it shows whether the index can serve at all.
        await client.query('SET LOCAL enable_seqscan = off');
        return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${POSTGRES_QUERIES.group.rows}`)).rows.map(
          (row) => row['QUERY PLAN'],
        );
      } finally {
        client.release();
      }
    });
    // The claim is read once (an InitPlan: `$0` before PostgreSQL 17), and the index compares with it.
    assert.match(plan.join('\n'), /Index Cond: \(tenant_id = (\(InitPlan 1\)\.col1|\$\d+)\)/);
    assert.match(plan.join('\n'), /orders_tenant_id_idx/);
  });

  it('the claims setting binds the dashboard’s own queries, not SQL its role is made to run: that SQL can set it', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT set_config('ugs.claims', '{"sub":"globex"}', true)`);
      assert.equal((await client.query(POSTGRES_QUERIES.group.rows)).rows.length, 12);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});

describe('example dashboard, PostgreSQL mode: the setup', () => {
  let database: TestDatabase;
  const roles: string[] = [];
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    for (const role of roles) await dropRole(database.url, role);
    await database?.drop();
  });
  const rowsAs = async (url: string, sub: string) => {
    const client = new pg.Client(url);
    await client.connect();
    try {
      return await withSessionClaims(client, claims(sub), async () => (await client.query(POSTGRES_QUERIES.group.rows)).rows.length);
    } finally {
      await client.end();
    }
  };

  it('runs again on the same database: the role is reused with a new password, the rows are the same', async () => {
    const role = roleName();
    roles.push(role);
    const first = await setUpPostgresOrders(database.url, { role });
    const second = await setUpPostgresOrders(database.url, { role });
    assert.equal(second.role, role);
    assert.notEqual(new URL(first.url).password, new URL(second.url).password);
    await assert.rejects(rowsAs(first.url, 'acme'), /password authentication failed/);
    assert.equal(await rowsAs(second.url, 'acme'), 12);
  });

  it('refuses to reuse a role that policies do not bind (BYPASSRLS), changing nothing', async () => {
    const role = roleName();
    const admin = new pg.Client(database.url);
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN BYPASSRLS`);
      roles.push(role);
      await assert.rejects(setUpPostgresOrders(database.url, { role }), /is a superuser or has BYPASSRLS/);
      const { rows } = await admin.query(`SELECT has_table_privilege($1, 'orders', 'SELECT') AS may`, [role]);
      assert.deepEqual(rows, [{ may: false }]);
    } finally {
      await admin.end();
    }
  });

  it('refuses to replace an orders table that is not the example’s', async () => {
    const other = await createTestDatabase();
    const admin = new pg.Client(other.url);
    await admin.connect();
    try {
      await admin.query(`CREATE TABLE orders (id int PRIMARY KEY); INSERT INTO orders VALUES (1)`);
      await assert.rejects(setUpPostgresOrders(other.url, { role: roleName() }), /already has an orders table that is not the example’s/);
      assert.deepEqual((await admin.query('SELECT id FROM orders')).rows, [{ id: 1 }]);
    } finally {
      await admin.end();
      await other.drop();
    }
  });
});
