import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  postgresPolicySql,
  tablePolicySql,
  withSessionClaims,
  type PolicyClaims,
  type PolicyColumnType,
  type TablePolicyOptions,
} from 'user-group-service/embed';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';

/**
 * Row-level security from the embed session, on real PostgreSQL, as a role
 * that policies bind (not superuser, not BYPASSRLS) and that owns the table,
 * with FORCE ROW LEVEL SECURITY: the owner is the role a policy would
 * otherwise spare.
 */

const ORDERS = [
  [1, 'acme', 'ann'],
  [2, 'acme', 'bob'],
  [3, 'globex', 'ann'],
  [4, 'acme-emea', 'cid'],
] as const;

const claims = (sub: string, more: Partial<PolicyClaims> = {}): PolicyClaims => ({ sub, props: {}, ...more });

describe('PostgreSQL row-level security from the session (withSessionClaims, postgresPolicySql)', () => {
  let database: TestDatabase;
  let role: TestRole;
  let pool: pg.Pool;
  const ids = async (client: pg.ClientBase | pg.Pool, sql = 'SELECT id FROM orders ORDER BY id') =>
    (await client.query<{ id: number }>(sql)).rows.map((row) => row.id);
  const withClaims = async <T>(session: PolicyClaims, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      return await withSessionClaims(client, session, fn);
    } finally {
      client.release();
    }
  };

  before(async () => {
    database = await createTestDatabase();
    role = await createTestRole(database.url);
    const admin = new pg.Client(database.url);
    await admin.connect();
    try {
      await admin.query(postgresPolicySql());
      // Installing twice is harmless: a deploy script may run it on every release.
      await admin.query(postgresPolicySql());
      await admin.query(`CREATE TABLE orders (id int PRIMARY KEY, tenant_id text NOT NULL, sales_rep text NOT NULL)`);
      await admin.query(`ALTER TABLE orders OWNER TO ${role.name}`);
      for (const [id, tenant, rep] of ORDERS) await admin.query('INSERT INTO orders VALUES ($1, $2, $3)', [id, tenant, rep]);
    } finally {
      await admin.end();
    }
    pool = new pg.Pool({ connectionString: role.url, max: 1 });
    const owner = await pool.connect();
    try {
      await owner.query(tablePolicySql({ table: 'orders', column: 'tenant_id' }));
    } finally {
      owner.release();
    }
  });

  after(async () => {
    await pool?.end();
    await role?.drop();
    await database?.drop();
  });

  it('a query with no tenant clause returns only the session group’s rows', async () => {
    assert.deepEqual(await withClaims(claims('acme'), (client) => ids(client)), [1, 2]);
    assert.deepEqual(await withClaims(claims('globex'), (client) => ids(client)), [3]);
    assert.deepEqual(await withClaims(claims('initech'), (client) => ids(client)), []);
  });

  it('fails closed: no claims, no rows (not all rows), and the functions are NULL', async () => {
    assert.deepEqual(await ids(pool), []);
    const { rows } = await pool.query(`SELECT ugs.user_group_id() AS g, ugs.viewer_id() AS v, ugs.prop('x') AS p,
      ugs.prop_list('x') AS l, ugs.viewer_prop('x') AS vp, ugs.viewer_prop_list('x') AS vl, ugs.subtree() AS s`);
    assert.deepEqual(rows, [{ g: null, v: null, p: null, l: null, vp: null, vl: null, s: null }]);
  });

  it('a pooled connection goes back with no claims: after commit, after an error, after fn commits by itself', async () => {
    await withClaims(claims('acme'), (client) => ids(client));
    assert.deepEqual(await ids(pool), [], 'after commit');
    await assert.rejects(
      withClaims(claims('acme'), async (client) => {
        await client.query('SELECT 1/0');
      }),
      /division by zero/,
    );
    assert.deepEqual(await ids(pool), [], 'after rollback');
    const afterOwnCommit = await withClaims(claims('acme'), async (client) => {
      await client.query('COMMIT');
      return ids(client);
    });
    assert.deepEqual(afterOwnCommit, [], 'what runs after fn’s own COMMIT sees no rows');
    assert.deepEqual(await ids(pool), []);
  });

  it('writes are bound too: a row for another group cannot be inserted or moved there', async () => {
    await assert.rejects(
      withClaims(claims('acme'), (client) => client.query(`INSERT INTO orders VALUES (9, 'globex', 'ann')`)),
      /row-level security/,
    );
    await assert.rejects(
      withClaims(claims('acme'), (client) => client.query(`UPDATE orders SET tenant_id = 'globex' WHERE id = 1`)),
      /row-level security/,
    );
    const updated = await withClaims(
      claims('acme'),
      async (client) => (await client.query(`UPDATE orders SET sales_rep = sales_rep`)).rowCount,
    );
    assert.equal(updated, 2, 'only its own rows are touched');
  });

  it('the functions read the claims: viewer, properties (text and lists) and the subtree', async () => {
    const session = claims('acme', {
      vid: 'ann@acme.test',
      desc: ['acme-emea', 'acme-us'],
      props: { region: 'eu', seats: 12, regions: ['eu', 'us'], vip: true, gone: null, nested: { a: 1 } },
    });
    const row = await withClaims(session, async (client) => {
      const { rows } = await client.query(`SELECT ugs.user_group_id() AS g, ugs.viewer_id() AS v, ugs.prop('region') AS region,
        ugs.prop('seats') AS seats, ugs.prop('vip') AS vip, ugs.prop('gone') AS gone, ugs.prop('absent') AS absent,
        ugs.prop_list('regions') AS regions, ugs.prop_list('region') AS one, ugs.prop_list('gone') AS none,
        ugs.subtree() AS subtree, ugs.prop('nested') AS nested`);
      return rows[0];
    });
    // Without viewer attributes, props are the group's own: the viewer's view is the same.
    const viewerView = await withClaims(session, async (client) => {
      const { rows } = await client.query(`SELECT ugs.viewer_prop('region') AS region, ugs.viewer_prop('seats') AS seats,
        ugs.viewer_prop('gone') AS gone, ugs.viewer_prop_list('regions') AS regions, ugs.viewer_prop_list('region') AS one`);
      return rows[0];
    });
    assert.deepEqual(viewerView, { region: 'eu', seats: '12', gone: null, regions: ['eu', 'us'], one: ['eu'] });
    assert.deepEqual(row, {
      g: 'acme',
      v: 'ann@acme.test',
      region: 'eu',
      seats: '12',
      vip: 'true',
      gone: null,
      absent: null,
      regions: ['eu', 'us'],
      one: ['eu'],
      none: null,
      subtree: ['acme', 'acme-emea', 'acme-us'],
      nested: '{"a": 1}',
    });
    assert.deepEqual(await withClaims(claims('globex'), async (client) => (await client.query('SELECT ugs.subtree() AS s')).rows[0].s), [
      'globex',
    ]);
  });

  it('a viewer attribute narrows further through ugs.viewer_prop; ugs.prop reads the group’s own properties', async () => {
    const mine = 'SELECT id FROM orders WHERE sales_rep = ugs.viewer_prop($$sales_rep$$) ORDER BY id';
    // As the service mints a viewer's session: props the attributes over the group's properties, gprops the group's own.
    const viewer = (attributes: Record<string, string | null>, group: Record<string, string> = {}) => {
      const props = Object.fromEntries(Object.entries({ ...group, ...attributes }).filter(([, value]) => value !== null));
      return claims('acme', { vid: 'v', props, vat: attributes, gprops: group });
    };
    assert.deepEqual(await withClaims(viewer({ sales_rep: 'bob' }), (client) => ids(client, mine)), [2]);
    assert.deepEqual(await withClaims(claims('acme', { props: {} }), (client) => ids(client, mine)), []);
    const both = await withClaims(viewer({ sales_rep: 'bob', tier: null }, { sales_rep: 'ann', tier: 'gold' }), async (client) => {
      const { rows } = await client.query(`SELECT ugs.prop('sales_rep') AS rep, ugs.viewer_prop('sales_rep') AS viewer_rep,
        ugs.prop('tier') AS tier, ugs.viewer_prop('tier') AS viewer_tier`);
      return rows[0];
    });
    assert.deepEqual(both, { rep: 'ann', viewer_rep: 'bob', tier: 'gold', viewer_tier: null });
  });

  it('a token with viewer attributes but no gprops (minted before the service carried them) binds no property: NULL, not the attributes', async () => {
    const old = claims('acme', { vid: 'v', props: { sales_rep: 'bob' }, vat: { sales_rep: 'bob' } });
    const row = await withClaims(old, async (client) => {
      const { rows } = await client.query(`SELECT ugs.prop('sales_rep') AS rep, ugs.prop_list('sales_rep') AS reps,
        ugs.viewer_prop('sales_rep') AS viewer_rep, ugs.user_group_id() AS g`);
      return rows[0];
    });
    assert.deepEqual(row, { rep: null, reps: null, viewer_rep: 'bob', g: 'acme' });
  });

  it('a policy bound to a property or to the subtree', async () => {
    const admin = new pg.Client(database.url);
    await admin.connect();
    try {
      await admin.query(`CREATE TABLE "Sales Rep Notes" ("Rep" text, note text)`);
      await admin.query(`INSERT INTO "Sales Rep Notes" VALUES ('ann', 'a'), ('bob', 'b')`);
      await admin.query(`GRANT SELECT ON "Sales Rep Notes" TO ${role.name}`);
      await admin.query(tablePolicySql({ table: 'Sales Rep Notes', column: 'Rep', property: "rep's" }));
      await admin.query(`CREATE TABLE accounts (tenant text, name text)`);
      await admin.query(`INSERT INTO accounts VALUES ('acme', 'a'), ('acme-emea', 'b'), ('globex', 'c')`);
      await admin.query(`GRANT SELECT ON accounts TO ${role.name}`);
      await admin.query(tablePolicySql({ table: 'public.accounts', column: 'tenant', subtree: true }));
    } finally {
      await admin.end();
    }
    const notes = 'SELECT note FROM "Sales Rep Notes" ORDER BY note';
    const names = 'SELECT name FROM accounts ORDER BY name';
    const read = (session: PolicyClaims, sql: string) =>
      withClaims(session, async (client) => (await client.query(sql)).rows.map((r) => Object.values(r)[0]));
    assert.deepEqual(await read(claims('acme', { props: { "rep's": 'bob' } }), notes), ['b']);
    assert.deepEqual(await read(claims('acme'), notes), []);
    assert.deepEqual(await read(claims('acme', { desc: ['acme-emea'] }), names), ['a', 'b']);
    assert.deepEqual(await read(claims('acme-emea'), names), ['b']);
    assert.deepEqual(await ids(pool, 'SELECT 1 AS id FROM accounts'), []);
  });

  it('a uuid column: the claim is compared as a uuid (an index serves it), an id that is no uuid fails the query, a policy without the type is refused', async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const admin = new pg.Client(database.url);
    await admin.connect();
    try {
      await admin.query(`CREATE TABLE devices (id int PRIMARY KEY, tenant uuid NOT NULL);
        CREATE INDEX devices_tenant_idx ON devices (tenant);
        INSERT INTO devices VALUES (1, '${mine}'), (2, '${theirs}');
        GRANT SELECT ON devices TO ${role.name};`);
      await assert.rejects(
        admin.query(tablePolicySql({ table: 'devices', column: 'tenant' })),
        /operator does not exist: uuid pg_catalog\.= text/,
      );
      await admin.query(tablePolicySql({ table: 'devices', column: 'tenant', columnType: 'uuid' }));
    } finally {
      await admin.end();
    }
    const devices = 'SELECT id FROM devices ORDER BY id';
    assert.deepEqual(await withClaims(claims(mine), (client) => ids(client, devices)), [1]);
    assert.deepEqual(await withClaims(claims(theirs), (client) => ids(client, devices)), [2]);
    await assert.rejects(
      withClaims(claims('acme'), (client) => ids(client, devices)),
      /invalid input syntax for type uuid: "acme"/,
    );
    const plan = await withClaims(claims(mine), async (client) => {
      await client.query('SET LOCAL enable_seqscan = off');
      return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${devices}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    // The claim is read once (an InitPlan: `$0` before PostgreSQL 17) and cast once; the index compares with it.
    assert.match(plan, /Index Cond: \(tenant = (\(\(InitPlan 1\)\.col1\)|\$\d+)::uuid\)/);
    assert.match(plan, /devices_tenant_idx/);
  });

  it('refuses claims without a group rather than running unbound', async () => {
    const client = await pool.connect();
    try {
      await assert.rejects(
        withSessionClaims(client, { props: {} } as unknown as PolicyClaims, async () => 1),
        /needs verified claims/,
      );
    } finally {
      client.release();
    }
  });
});

describe('tablePolicySql', () => {
  it('quotes what PostgreSQL would not read back as written, and refuses what is not a name', () => {
    const sql = tablePolicySql({ table: 'Sales."Q1.orders"', column: 'Tenant Id', property: "it's" });
    assert.match(sql, /ALTER TABLE "Sales"\."Q1\.orders" FORCE ROW LEVEL SECURITY;/);
    assert.match(sql, /USING \("Tenant Id" OPERATOR\(pg_catalog\.=\) \(SELECT ugs\.prop\('it''s'\)\)\)/);
    assert.throws(() => tablePolicySql({ table: 'a.b.c', column: 'x' }), /not a table name/);
    assert.throws(() => tablePolicySql({ table: 'orders', column: '' }), /not an identifier/);
    assert.throws(() => tablePolicySql({ table: 'orders', column: 'x', property: 'p', subtree: true }), /not both/);
    assert.throws(
      () => tablePolicySql({ table: 'orders', column: 'x', columnType: 'json' as PolicyColumnType }),
      /"json" is not a column type a policy compares: one of text, varchar, uuid, integer, bigint/,
    );
  });

  it('compares by pg_catalog’s operator, the claim cast to the column’s type', () => {
    const policy = (options: Partial<TablePolicyOptions>) =>
      tablePolicySql({ table: 'orders', column: 'tenant_id', ...options }).match(/USING \((.*)\)\n/)?.[1];
    assert.equal(policy({}), 'tenant_id OPERATOR(pg_catalog.=) (SELECT ugs.user_group_id())');
    assert.equal(policy({ columnType: 'varchar' }), 'tenant_id OPERATOR(pg_catalog.=) (SELECT ugs.user_group_id())');
    assert.equal(policy({ columnType: 'uuid' }), 'tenant_id OPERATOR(pg_catalog.=) (SELECT ugs.user_group_id())::pg_catalog.uuid');
    assert.equal(
      policy({ columnType: 'bigint', property: 'org' }),
      "tenant_id OPERATOR(pg_catalog.=) (SELECT ugs.prop('org'))::pg_catalog.int8",
    );
    assert.equal(
      policy({ columnType: 'integer', subtree: true }),
      'tenant_id OPERATOR(pg_catalog.=) ANY ((SELECT ugs.subtree())::pg_catalog.int4[])',
    );
  });
});
