import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { UserGroupClient } from 'user-group-service/client';
import { sqlLiteral, supersetGuestTokenRequest } from '../../examples/superset/guest-token-request.js';
import { buildForSuite } from '../helpers/build.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/**
 * docs/integrations/superset.md's guest-token request, built from groups of a live service, and its clauses run
 * as Superset runs a row-level rule: ANDed into the WHERE of the dataset's query, here on real PostgreSQL.
 */
describe('Superset guest-token request from a group (examples/superset)', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  let database: TestDatabase;
  let sql: pg.Client;
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key });
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await client.getOrCreate({ user_group_id: 'acme-labs', name: 'Acme Labs', parent_user_group_id: 'acme' });
    await client.getOrCreate({ user_group_id: 'globex', name: 'Globex', properties: { region: "o'hare" } });
    await client.getOrCreate({ user_group_id: 'hooli', name: 'Hooli', properties: { region: 'x\\' } });
    database = await createTestDatabase();
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    await sql.query(`CREATE TABLE orders (id int, tenant_id text, region text)`);
    await sql.query(`INSERT INTO orders VALUES (1, 'acme', 'eu'), (2, 'acme-labs', 'eu'), (3, 'globex', 'o''hare'), (4, 'globex', 'us')`);
  });
  after(async () => {
    await sql?.end();
    await database?.drop();
  });
  const rowsUnder = async (clause: string) =>
    (await sql.query<{ id: number }>(`SELECT id FROM orders WHERE (${clause}) ORDER BY id`)).rows.map((row) => row.id);

  it("binds the group's id, or its subtree's ids, and names the group as the guest user", async () => {
    const own = await supersetGuestTokenRequest(client, 'acme', { dashboardId: 'dash-uuid', rls: [{ column: 'tenant_id' }] });
    assert.deepEqual(own, {
      user: { username: 'acme', first_name: 'Acme', last_name: '' },
      resources: [{ type: 'dashboard', id: 'dash-uuid' }],
      rls: [{ clause: "tenant_id IN ('acme')" }],
    });
    assert.deepEqual(await rowsUnder(own.rls[0]!.clause), [1]);
    const subtree = await supersetGuestTokenRequest(client, 'acme', {
      dashboardId: 'dash-uuid',
      rls: [{ column: 'tenant_id', dataset: 7 }],
      includeDescendants: true,
    });
    assert.deepEqual(subtree.rls, [{ dataset: 7, clause: "tenant_id IN ('acme', 'acme-labs')" }]);
    assert.deepEqual(await rowsUnder(subtree.rls[0]!.clause), [1, 2]);
  });

  it('binds an effective property (inherited too), quoting it so a quote in the value stays a value', async () => {
    const labs = await supersetGuestTokenRequest(client, 'acme-labs', {
      dashboardId: 'd',
      rls: [{ column: 'region', from: { property: 'region' } }],
    });
    assert.deepEqual(labs.rls, [{ clause: "region = 'eu'" }]);
    const globex = await supersetGuestTokenRequest(client, 'globex', {
      dashboardId: 'd',
      rls: [{ column: 'region', from: { property: 'region' } }],
    });
    assert.deepEqual(await rowsUnder(globex.rls[0]!.clause), [3]);
  });

  it('refuses, before any token exists, what it cannot bind safely', async () => {
    const request = (id: string, rls: Parameters<typeof supersetGuestTokenRequest>[2]['rls']) =>
      supersetGuestTokenRequest(client, id, { dashboardId: 'd', rls });
    await assert.rejects(request('acme', [{ column: 'region', from: { property: 'plan' } }]), /no property "plan"/);
    await assert.rejects(request('hooli', [{ column: 'region', from: { property: 'region' } }]), /backslash/);
    await assert.rejects(request('acme', [{ column: 'tenant_id) OR (1=1' }]), /not a plain column name/);
    await assert.rejects(request('acme', []), /at least one row-level rule/);
    await assert.rejects(request('nobody', [{ column: 'tenant_id' }]), (e: unknown) => (e as { status?: number }).status === 404);
  });

  it('says every literal the same way in every dialect, or not at all', () => {
    assert.equal(sqlLiteral("a'b"), "'a''b'");
    assert.equal(sqlLiteral(42), '42');
    for (const unsafe of ['a\\b', 'a\u0000b', 'line\nbreak', Number.NaN, null, true, { a: 1 }])
      assert.throws(() => sqlLiteral(unsafe), TypeError);
  });
});
