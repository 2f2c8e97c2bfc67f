import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DataRouterError, type DataRouter, type DataRouterErrorCode, type EmbedClaims } from 'user-group-service/embed';
import { buildForSuite } from '../helpers/build.js';
import { freePort } from '../helpers/embedded-postgres.js';
import { routerFixture } from './router-fixture.js';
import { createTenantDatabase, routerConnections, type TenantDatabase } from './tenant-databases.js';

/**
 * Each DataRouterError the service and PostgreSQL can cause, with real sessions: the run is refused before
 * `fn` is called, and, but for database_unavailable, before any connection to the database is opened.
 * (unsupported_kind needs a data source of a kind the service does not take yet, and the service's own
 * failures need a service that fails on demand: data-router-service-faults.test.ts has both.)
 */
describe('data router: typed errors, and no statement reaches a database', () => {
  const service = buildForSuite();
  const fixture = routerFixture(service);
  let acme: TenantDatabase;
  let customer: EmbedClaims;
  let testing: EmbedClaims;

  /** The run's DataRouterError; fails the test if fn was called. */
  async function refusal(router: DataRouter, claims: EmbedClaims, schemaId: string, code: DataRouterErrorCode): Promise<DataRouterError> {
    let called = false;
    const error = await router
      .run(claims, schemaId, async () => {
        called = true;
      })
      .then(
        () => assert.fail('the run succeeded'),
        (e: unknown) => e,
      );
    assert.equal(called, false, 'fn was called');
    assert.ok(error instanceof DataRouterError, String(error));
    assert.equal(error.code, code, error.message);
    return error;
  }

  before(async () => {
    acme = await createTenantDatabase({ acme: 2 });
    await fixture.createDataSource('acme-db', acme.connection());
    await fixture.createDataSource('nowhere-db', { ...acme.connection(), port: await freePort() });
    await fixture.createDataSource('wrong-password-db', { ...acme.connection(), password: 'not-the-password' });
    await fixture.group('acme', { sales: 'acme-db', finance: 'never-created', ops: 'nowhere-db', hr: 'wrong-password-db' });
    await fixture.group('acme-test', { sales: 'acme-db' }, { environment: 'Testing' });
    customer = await fixture.claims('acme');
    testing = await fixture.claims('acme-test', 'Testing');
  });
  after(async () => {
    await acme?.drop();
  });

  it('unknown_schema: the mapping has no such schema id, own property names only', async () => {
    const router = await fixture.router();
    for (const schema of ['marketing', '__proto__', 'toString', 'constructor', '']) {
      const error = await refusal(router, customer, schema, 'unknown_schema');
      assert.match(error.message, /the session's mapping names no data source for schema/);
    }
    assert.deepEqual(await routerConnections(acme), []);
  });

  it('unresolved_data_source: the mapping names a data source the service does not have', async () => {
    const router = await fixture.router();
    const error = await refusal(router, customer, 'finance', 'unresolved_data_source');
    assert.equal(
      error.message,
      'schema "finance" maps to data source "never-created", which the service does not have in this environment (never created, or deleted)',
    );
  });

  it('environment_mismatch: a session of the other environment, or a data source of it (the key of the other environment)', async () => {
    const customerRouter = await fixture.router();
    const session = await refusal(customerRouter, testing, 'sales', 'environment_mismatch');
    assert.match(session.message, /the session is of the Testing environment; this data router routes Customer sessions only/);
    // A Testing router given a Customer key: the service answers Customer's acme-db, which no Testing session may use.
    const misKeyed = await fixture.router({ environment: 'Testing', apiKey: await fixture.dashboardKey('Customer') });
    const source = await refusal(misKeyed, testing, 'sales', 'environment_mismatch');
    assert.match(source.message, /data source "acme-db" is of the Customer environment and the session of Testing/);
    assert.deepEqual(await routerConnections(acme), []);
  });

  it('service_unavailable: a key that is not a dashboard key, or a revoked one, is refused by the service', async () => {
    const readWrite = await fixture.router({ apiKey: service.api.key! });
    const forbidden = await refusal(readWrite, customer, 'sales', 'service_unavailable');
    assert.match(
      forbidden.message,
      /the service refused the API key: HTTP 403 \(forbidden\): give the router an API key with the dashboard access/,
    );
    const { record, key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'dashboard' });
    await service.services.apiKeys.revoke(record.id);
    const revoked = await refusal(await fixture.router({ apiKey: key }), customer, 'sales', 'service_unavailable');
    assert.match(revoked.message, /HTTP 401 \(unauthenticated\)/);
    for (const message of [forbidden.message, revoked.message]) assert.ok(!message.includes(key) && !message.includes(service.api.key!));
    assert.deepEqual(await routerConnections(acme), []);
  });

  it('database_unavailable: the data source’s server refuses the connection or the password, without the password in the message', async () => {
    const router = await fixture.router({ connectTimeoutMs: 2_000 });
    assert.match(
      (await refusal(router, customer, 'ops', 'database_unavailable')).message,
      /could not connect to data source "nowhere-db" \(ECONNREFUSED/,
    );
    const wrongPassword = await refusal(router, customer, 'hr', 'database_unavailable');
    assert.match(wrongPassword.message, /could not connect to data source "wrong-password-db" \(28P01: password authentication failed/);
    assert.ok(!wrongPassword.message.includes('not-the-password'));
  });

  it('router_closed: a closed router runs nothing', async () => {
    const router = await fixture.router();
    await router.close();
    await refusal(router, customer, 'sales', 'router_closed');
    assert.deepEqual(await routerConnections(acme), []);
  });
});
