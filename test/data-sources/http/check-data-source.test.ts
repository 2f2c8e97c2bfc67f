import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHECKS_PER_KEY_PER_MINUTE } from '../../../src/data-sources/http/check-rate-limit.js';
import { buildForSuite } from '../../helpers/build.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/postgres.js';
import { createTestRole, type TestRole } from '../../helpers/postgres-roles.js';

const path = (suffix = '') => ({ path: `/api/data_sources${suffix}` });

/** A data source body pointing at the database `url` names, as the role it names. */
function sourceAt(id: string, url: string, overrides: Record<string, unknown> = {}) {
  const parsed = new URL(url);
  return {
    id,
    name: id,
    kind: 'postgresql',
    connection: {
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      database: parsed.pathname.slice(1),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      ...overrides,
    },
  };
}

describe('POST /api/data_sources/{id}/check, against a real PostgreSQL server', () => {
  const server = buildForSuite({ clients: { reader: { access: 'read-only' }, other: {} } });
  let database: TestDatabase;
  let role: TestRole;
  before(async () => {
    database = await createTestDatabase();
    role = await createTestRole(database.url);
  });
  after(async () => {
    await role.drop();
    await database.drop();
  });

  it('connects as a plain role: reachable, authenticated, its version, neither superuser nor BYPASSRLS; audited with its outcome', async () => {
    assert.equal((await server.api.call('POST', sourceAt('plain', role.url), path())).status, 201);
    const res = await server.api.call('POST', undefined, path('/plain/check'));
    assert.equal(res.status, 200, res.text);
    const { check } = res.json;
    assert.deepEqual(
      [check.reachable, check.authenticated, check.superuser, check.bypass_rls, check.failure],
      [true, true, false, false, null],
    );
    assert.match(check.server_version, /^\d+(\.\d+)?$/);
    const audit = await server.services.audit.listAuditRecords({ limit: 100, newestFirst: true });
    const record = audit.find((r) => r.action === 'data_source.checked' && r.dataSourceId === 'plain');
    assert.deepEqual(record?.fields, ['connected']);
  });

  it('says a wrong password and a superuser in categories, never the server text', async () => {
    await server.api.call('POST', sourceAt('wrong', role.url, { password: 'not-the-password' }), path());
    const wrong = (await server.api.call('POST', undefined, path('/wrong/check'))).json.check;
    assert.deepEqual([wrong.reachable, wrong.authenticated, wrong.failure], [true, false, 'authentication_failed']);
    await server.api.call('POST', sourceAt('admin', database.url), path());
    const admin = (await server.api.call('POST', undefined, path('/admin/check'))).json.check;
    assert.equal(admin.superuser, true, 'row policies do not bind the admin role: the check says so');
  });

  it("refuses this service's own port and link-local addresses without connecting", async () => {
    const port = Number(new URL(server.url).port);
    await server.api.call('POST', sourceAt('itself', role.url, { host: '127.0.0.1', port }), path());
    await server.api.call('POST', sourceAt('metadata', role.url, { host: '169.254.169.254', port: 80 }), path());
    for (const id of ['itself', 'metadata']) {
      const check = (await server.api.call('POST', undefined, path(`/${id}/check`))).json.check;
      assert.deepEqual([check.reachable, check.failure], [false, 'address_refused'], id);
    }
  });

  it(`is for read-write keys, ${CHECKS_PER_KEY_PER_MINUTE} per key per minute (429 past it, other keys unaffected)`, async () => {
    assert.equal((await server.clients.reader.call('POST', undefined, path('/plain/check'))).status, 403);
    await server.clients.other.call('POST', sourceAt('limited', role.url, { host: '169.254.169.254' }), path());
    const statuses: number[] = [];
    for (let i = 0; i <= CHECKS_PER_KEY_PER_MINUTE; i++)
      statuses.push((await server.clients.other.call('POST', undefined, path('/limited/check'))).status);
    assert.deepEqual(statuses, [...Array(CHECKS_PER_KEY_PER_MINUTE).fill(200), 429]);
    assert.equal((await server.api.call('POST', undefined, path('/metadata/check'))).status, 200);
  });
});
