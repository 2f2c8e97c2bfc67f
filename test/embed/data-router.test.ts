import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PoolClient } from 'pg';
import { DataRouterError, type EmbedClaims } from 'user-group-service/embed';
import { buildForSuite } from '../helpers/build.js';
import { waitFor } from './fake-embed-service.js';
import { routerFixture } from './router-fixture.js';
import { createTenantDatabase, routerConnections, type TenantDatabase } from './tenant-databases.js';

/**
 * The data router against the service and real PostgreSQL: acme and globex each in a database of their own,
 * initech and its sub-group initech-emea in a shared one under row policies. Sessions are minted by the
 * service and verified as a dashboard verifies them; the router reads the data sources with a dashboard key.
 */

interface Seen {
  db: string;
  role: string;
  group: string | null;
  pid: number;
  tenants: string[];
}

/** What a session's transaction sees: where it runs, as whom, for which group, and the tenants of the rows it can read. */
async function look(client: PoolClient): Promise<Seen> {
  const { rows } = await client.query<{ db: string; role: string; group: string | null; pid: number }>(
    'SELECT current_database() AS db, current_user AS role, ugs.user_group_id() AS "group", pg_backend_pid() AS pid',
  );
  const orders = await client.query<{ tenant_id: string }>('SELECT tenant_id FROM orders ORDER BY tenant_id');
  return { ...rows[0]!, tenants: orders.rows.map((row) => row.tenant_id) };
}

const times = (tenant: string, count: number) => Array.from({ length: count }, () => tenant);

describe('data router: routes each session by its mapping, on the service and real PostgreSQL', () => {
  const service = buildForSuite();
  const fixture = routerFixture(service);
  let acme: TenantDatabase;
  let globex: TenantDatabase;
  let shared: TenantDatabase;
  const claims: Record<string, EmbedClaims> = {};

  before(async () => {
    [acme, globex, shared] = await Promise.all([
      createTenantDatabase({ acme: 4 }),
      createTenantDatabase({ globex: 3 }),
      createTenantDatabase({ initech: 3, 'initech-emea': 2, hooli: 2 }, { shared: true }),
    ]);
    await fixture.createDataSource('acme-db', acme.connection());
    await fixture.createDataSource('globex-db', globex.connection());
    await fixture.createDataSource('213', shared.connection());
    await fixture.group('acme', { sales: 'acme-db', finance: 'globex-db-typo' });
    await fixture.group('globex', { sales: 'globex-db' });
    await fixture.group('initech', { sales: 213 });
    await fixture.group('initech-emea', null, { parent: 'initech' });
    for (const group of ['acme', 'globex', 'initech', 'initech-emea']) claims[group] = await fixture.claims(group);
  });
  after(async () => {
    for (const database of [acme, globex, shared]) await database?.drop();
  });

  it("runs fn on the group's own data source, in a transaction carrying the session's claims, and resolves to fn's result", async () => {
    const router = await fixture.router();
    const seen = async (group: string) => router.run(claims[group]!, 'sales', look);
    const acmeSeen = await seen('acme');
    assert.deepEqual(
      [acmeSeen.db, acmeSeen.role, acmeSeen.group, acmeSeen.tenants],
      [acme.name, acme.roles[0].name, 'acme', times('acme', 4)],
    );
    const globexSeen = await seen('globex');
    assert.deepEqual([globexSeen.db, globexSeen.group, globexSeen.tenants], [globex.name, 'globex', times('globex', 3)]);
    // The shared database: the parent sees its sub-group's rows (the subtree policy), the sub-group only its own.
    const initech = await seen('initech');
    assert.deepEqual(
      [initech.db, initech.group, initech.tenants],
      [shared.name, 'initech', [...times('initech', 3), ...times('initech-emea', 2)]],
    );
    const emea = await seen('initech-emea');
    assert.equal(claims['initech-emea']!.map.sales, 213, 'the inherited mapping, a number: the data source "213"');
    assert.deepEqual([emea.db, emea.group, emea.tenants], [shared.name, 'initech-emea', times('initech-emea', 2)]);
  });

  it('one pool per data source, reused: consecutive runs take the same connection; maxConnectionsPerPool bounds it', async () => {
    const router = await fixture.router({ maxConnectionsPerPool: 2 });
    const first = await router.run(claims.globex!, 'sales', look);
    assert.equal((await router.run(claims.globex!, 'sales', look)).pid, first.pid);

    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const pids: number[] = [];
    const runs = Array.from({ length: 6 }, () =>
      router.run(claims.globex!, 'sales', async (client) => {
        pids.push((await look(client)).pid);
        await gate;
      }),
    );
    await waitFor('two runs to hold both connections', () => pids.length === 2);
    assert.equal((await routerConnections(globex)).length, 2);
    open();
    await Promise.all(runs);
    assert.equal(pids.length, 6);
    assert.ok(new Set(pids).size <= 2, `${new Set(pids).size} connections`);
  });

  it('the connection is fn’s only while the run lasts: kept past it, it refuses every use; fn cannot release it', async () => {
    const router = await fixture.router();
    let kept!: PoolClient;
    const notices: unknown[] = [];
    await router.run(claims.acme!, 'sales', async (client) => {
      kept = client;
      client.on('notice', (notice) => notices.push(notice));
      await client.query('SELECT 1');
    });
    await assert.rejects(
      kept.query('SELECT * FROM orders'),
      (error: unknown) => error instanceof DataRouterError && error.code === 'client_released',
    );
    assert.throws(() => kept.connection, { name: 'DataRouterError', message: /may be serving another session now/ });
    assert.throws(() => kept.release(), { name: 'TypeError' });
    await assert.rejects(
      router.run(claims.acme!, 'sales', async (client) => client.release()),
      /the data router releases the connection when fn settles/,
    );
    // The listener fn added went with its run: a later session's notices never reach it.
    await router.run(claims.acme!, 'sales', (client) => client.query(`DO $$ BEGIN RAISE NOTICE 'for acme''s next session'; END $$`));
    assert.deepEqual(notices, []);
  });

  it('a connection that cannot be trusted is destroyed, not pooled: fn threw, or ended the transaction itself', async () => {
    const router = await fixture.router({ maxConnectionsPerPool: 1 });
    const pid = async () => (await router.run(claims.acme!, 'sales', look)).pid;
    const before = await pid();
    assert.equal(await pid(), before, 'a run that went well gives its connection back');
    await assert.rejects(
      router.run(claims.acme!, 'sales', async (client) => {
        await client.query('SELECT 1');
        throw new Error('the dashboard failed');
      }),
      /the dashboard failed/,
    );
    const afterFailure = await pid();
    assert.notEqual(afterFailure, before);
    const afterOwnCommit = await router.run(claims.acme!, 'sales', async (client) => {
      await client.query('COMMIT');
      // Outside the transaction the claims are gone: the policies' functions see no group.
      return (await look(client)).group;
    });
    assert.equal(afterOwnCommit, null);
    assert.notEqual(await pid(), afterFailure);
  });

  it('a data source updated: runs starting refreshMs after the update use the new settings, and the old pool closes', async () => {
    const router = await fixture.router({ refreshMs: 200 });
    assert.equal((await router.run(claims.acme!, 'sales', look)).role, acme.roles[0].name);
    await fixture.updateDataSource('acme-db', { user: acme.connection(1).user, password: acme.connection(1).password, host: 'localhost' });
    const updatedAt = Date.now();
    // Until refreshMs has passed, a run may still use the old settings; from then on, none does.
    for (;;) {
      const startedAt = Date.now();
      const { role } = await router.run(claims.acme!, 'sales', look);
      if (startedAt >= updatedAt + 200) {
        assert.equal(role, acme.roles[1].name);
        break;
      }
    }
    await waitFor('the old pool to close', async () => (await routerConnections(acme)).join() === acme.roles[1].name);
    await fixture.updateDataSource('acme-db', { ...acme.connection(0) });
  });

  it('a data source deleted: runs starting refreshMs after it get unresolved_data_source and run nothing; its pool closes', async () => {
    const router = await fixture.router({ refreshMs: 200 });
    await fixture.createDataSource('globex-reports', globex.connection(1));
    await fixture.group('globex-sub', { reports: 'globex-reports' }, { parent: 'globex' });
    const session = await fixture.claims('globex-sub');
    assert.equal((await router.run(session, 'reports', look)).role, globex.roles[1].name);
    await fixture.deleteDataSource('globex-reports');
    const deletedAt = Date.now();
    for (;;) {
      const startedAt = Date.now();
      let called = false;
      const outcome = await router
        .run(session, 'reports', async () => {
          called = true;
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      if (startedAt < deletedAt + 200) continue;
      assert.ok(outcome instanceof DataRouterError && outcome.code === 'unresolved_data_source', String(outcome));
      assert.match(outcome.message, /schema "reports" maps to data source "globex-reports", which the service does not have/);
      assert.equal(called, false);
      break;
    }
    await waitFor('the pool to close', async () => !(await routerConnections(globex)).includes(globex.roles[1].name));
  });

  it('maxPools: opening one more pool closes the least recently used idle one', async () => {
    const router = await fixture.router({ maxPools: 1 });
    await router.run(claims.acme!, 'sales', look);
    assert.equal((await routerConnections(acme)).length, 1);
    await router.run(claims.globex!, 'sales', look);
    await waitFor("acme's pool to close", async () => (await routerConnections(acme)).length === 0);
    assert.equal((await router.run(claims.acme!, 'sales', look)).db, acme.name, 'and opens again when acme comes back');
  });

  it('idleTimeoutMs: an unused connection closes', async () => {
    const router = await fixture.router({ idleTimeoutMs: 50 });
    await router.run(claims.initech!, 'sales', look);
    await waitFor('the idle connection to close', async () => (await routerConnections(shared)).length === 0);
  });

  it('close(): new runs get router_closed, a run under way finishes, then every pool is closed', async () => {
    const router = await fixture.router();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started = false;
    const running = router.run(claims['initech-emea']!, 'sales', async (client) => {
      started = true;
      await gate;
      return (await look(client)).tenants;
    });
    await waitFor('the run to start', () => started);
    const closed = router.close();
    await assert.rejects(
      router.run(claims.acme!, 'sales', look),
      (error: unknown) => error instanceof DataRouterError && error.code === 'router_closed',
    );
    open();
    assert.deepEqual(await running, times('initech-emea', 2));
    await closed;
    assert.deepEqual(await routerConnections(shared), []);
  });
});
