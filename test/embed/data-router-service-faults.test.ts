import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { createDataRouter, DataRouterError, type DataRouter, type DataRouterOptions, type RoutedClaims } from 'user-group-service/embed';
import { freePort } from '../helpers/embedded-postgres.js';
import { waitFor } from './fake-embed-service.js';
import { DASHBOARD_KEY, failure, FakeDataSourceService } from './fake-data-source-service.js';
import { createTenantDatabase, routerConnections, type TenantDatabase } from './tenant-databases.js';

/**
 * The router when the service answers late, fails, or answers what it should not: a stand-in service
 * (fake-data-source-service.ts) in front of a real PostgreSQL database. Whatever goes wrong, no statement
 * reaches the database: the run fails with a DataRouterError and `fn` is never called.
 */

const session = (more: Partial<RoutedClaims> = {}): RoutedClaims => ({
  sub: 'acme',
  env: 'Customer',
  map: { sales: 'acme-db' },
  props: {},
  ...more,
});
const whoAmI = async (client: { query(sql: string): Promise<{ rows: { db: string; role: string }[] }> }) =>
  (await client.query('SELECT current_database() AS db, current_user AS role')).rows[0]!;

describe('data router against a failing service', () => {
  let acme: TenantDatabase;
  let service: FakeDataSourceService;
  const routers: DataRouter[] = [];
  const router = (options: Partial<DataRouterOptions> = {}) => {
    const made = createDataRouter({ serviceUrl: service.url, apiKey: DASHBOARD_KEY, ...options });
    routers.push(made);
    return made;
  };
  /** The run's refusal; fails the test if fn was called or the run succeeded. */
  const refusal = async (run: (fn: () => Promise<never>) => Promise<unknown>): Promise<DataRouterError> => {
    let called = false;
    const error = await run(async () => {
      called = true;
      throw new Error('fn must not be called');
    }).then(
      () => assert.fail('the run succeeded'),
      (e: unknown) => e,
    );
    assert.equal(called, false, 'fn was called');
    assert.ok(error instanceof DataRouterError, String(error));
    return error;
  };

  before(async () => {
    acme = await createTenantDatabase({ acme: 3 });
  });
  after(async () => {
    await acme?.drop();
  });
  beforeEach(async () => {
    service = await FakeDataSourceService.start();
    service.put('acme-db', acme.connection());
  });
  afterEach(async () => {
    for (const made of routers.splice(0)) await made.close();
    await service.close();
  });

  it('concurrent runs share one request to the service, and within refreshMs no run asks again', async () => {
    const routed = router({ refreshMs: 60_000 });
    let release!: () => void;
    service.hold = new Promise((resolve) => (release = resolve));
    const runs = Array.from({ length: 20 }, () => routed.run(session(), 'sales', whoAmI));
    // Every run is waiting on the one request the first one sent.
    while (service.requestsFor('acme-db') === 0) await new Promise((resolve) => setImmediate(resolve));
    release();
    service.hold = undefined;
    for (const answer of await Promise.all(runs)) assert.equal(answer.db, acme.name);
    await routed.run(session(), 'sales', whoAmI);
    assert.equal(service.requestsFor('acme-db'), 1);
  });

  it('refreshMs 0: every run asks, and uses the answer (a new version: a new pool, the old one closed)', async () => {
    const routed = router({ refreshMs: 0 });
    assert.equal((await routed.run(session(), 'sales', whoAmI)).role, acme.roles[0].name);
    service.put('acme-db', acme.connection(1));
    assert.equal((await routed.run(session(), 'sales', whoAmI)).role, acme.roles[1].name);
    assert.equal(service.requestsFor('acme-db'), 2);
    // The old pool ends with its connection: only the new role stays connected.
    await waitFor('the old pool to close', async () => (await routerConnections(acme)).join() === acme.roles[1].name);
  });

  it('fails closed: once its answer is older than refreshMs, no run uses it while the service cannot answer (service_unavailable)', async () => {
    const routed = router({ refreshMs: 0 });
    await routed.run(session(), 'sales', whoAmI);
    service.canned = { status: 503, body: failure('unavailable', 'the store is unavailable') };
    const error = await refusal((fn) => routed.run(session(), 'sales', fn));
    assert.equal(error.code, 'service_unavailable');
    assert.match(error.message, /could not say what data source "acme-db" is now \(the service answered HTTP 503 \(unavailable\)\)/);
    service.canned = undefined;
    assert.equal((await routed.run(session(), 'sales', whoAmI)).db, acme.name, 'and runs again once the service answers');
  });

  it('service_unavailable when the service is unreachable, refuses the key, or answers a 404 that is not its own', async () => {
    const unreachable = createDataRouter({ serviceUrl: `http://127.0.0.1:${await freePort()}`, apiKey: DASHBOARD_KEY });
    routers.push(unreachable);
    const down = await refusal((fn) => unreachable.run(session(), 'sales', fn));
    assert.equal(down.code, 'service_unavailable');
    assert.match(down.message, /ECONNREFUSED/);

    const wrongKey = router({ apiKey: 'ugsk_not_a_dashboard_key' });
    const refused = await refusal((fn) => wrongKey.run(session(), 'sales', fn));
    assert.equal(refused.code, 'service_unavailable');
    assert.match(
      refused.message,
      /the service refused the API key: HTTP 401 \(unauthenticated\): give the router an API key with the dashboard access/,
    );
    assert.ok(!refused.message.includes('ugsk_not_a_dashboard_key'), 'the key is never in a message');

    service.canned = { status: 404, body: '<html>Not Found</html>' };
    const wrongUrl = await refusal((fn) => router().run(session(), 'sales', fn));
    assert.equal(wrongUrl.code, 'service_unavailable', 'a 404 from something else is no proof the data source is gone');
  });

  it('service_unavailable for an answer it cannot trust: not JSON, malformed, or about another data source', async () => {
    const connection = acme.connection();
    const answers: [unknown, RegExp][] = [
      ['{"success":1,', /not JSON/],
      [{ success: 1 }, /"data_source" is missing or malformed/],
      [
        { success: 1, data_source: { id: 'globex-db', api_environment_tag: 'Customer', kind: 'postgresql', version: 1, connection } },
        /another data source/,
      ],
      [
        {
          success: 1,
          data_source: {
            id: 'acme-db',
            api_environment_tag: 'Customer',
            kind: 'postgresql',
            version: 1,
            connection: { ...connection, port: 'x' },
          },
        },
        /"connection\.port"/,
      ],
      [
        {
          success: 1,
          data_source: {
            id: 'acme-db',
            api_environment_tag: 'Customer',
            kind: 'postgresql',
            version: 1,
            connection: { ...connection, ssl: { mode: 'prefer' } },
          },
        },
        /"connection\.ssl\.mode"/,
      ],
    ];
    for (const [body, message] of answers) {
      service.canned = { status: 200, body };
      const error = await refusal((fn) => router({ refreshMs: 0 }).run(session(), 'sales', fn));
      assert.equal(error.code, 'service_unavailable');
      assert.match(error.message, message);
      assert.ok(!error.message.includes(connection.password!), 'the password is never in a message');
    }
    assert.deepEqual(await routerConnections(acme), []);
  });

  it('unsupported_kind for a data source of another kind; environment_mismatch for one of the other environment', async () => {
    service.put('ledger', acme.connection(), { kind: 'mysql' });
    const kind = await refusal((fn) => router().run(session({ map: { finance: 'ledger' } }), 'finance', fn));
    assert.equal(kind.code, 'unsupported_kind');
    assert.match(kind.message, /data source "ledger" is of kind "mysql"/);

    service.put('acme-db', acme.connection(), { environment: 'Testing' });
    const mismatch = await refusal((fn) => router().run(session(), 'sales', fn));
    assert.equal(mismatch.code, 'environment_mismatch');
    assert.match(mismatch.message, /the router's API key is a Testing key/);
    assert.deepEqual(await routerConnections(acme), []);
  });

  it('router_closed: a run waiting on the service when the router closes runs nothing', async () => {
    const routed = router();
    service.hold = new Promise(() => undefined);
    const pending = refusal((fn) => routed.run(session(), 'sales', fn));
    while (service.requestsFor('acme-db') === 0) await new Promise((resolve) => setImmediate(resolve));
    await routed.close();
    assert.equal((await pending).code, 'router_closed');
    assert.equal((await refusal((fn) => routed.run(session(), 'sales', fn))).code, 'router_closed');
  });
});
