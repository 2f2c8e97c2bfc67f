import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { buildForSuite } from '../../helpers/build.js';
import { ApiClient } from '../../helpers/http-client.js';

/**
 * The Customer API (Explo's, docs/customer-api.md) on this service's groups: a customer is a user group, the same
 * token and data through /api/user; its own fields (emails, tags, demo flag, hierarchy level) stored and answered;
 * every refusal a 4xx in the service's error shape. Both stores (the HTTP suite runs again on PostgreSQL).
 */
describe('the Customer API: customers', () => {
  const server = buildForSuite({ hierarchyLevels: ['Customer', 'Team', 'User'] });
  let api: ApiClient;
  const post = (path: string, body: unknown, client: ApiClient = api) => client.call('POST', body, { path });
  const create = (body: unknown, client?: ApiClient) => post('/api/create_customer/', body, client);
  const get = (providedId: string) => post('/api/get_customer/', { provided_id: providedId });
  const update = (body: unknown, client?: ApiClient) => post('/api/update_customer/', body, client);
  before(async () => {
    api = server.api;
    for (const name of ['sales', 'engineers']) assert.equal((await post('/api/create_group_tag/', { name })).status, 200);
  });

  it('creates a customer with every field, then answers it as it is (new_customer false, the body not applied)', async () => {
    const body = {
      provided_id: 'example_1',
      name: 'Example 1',
      mapping: { '40': '213', '134': '386' },
      properties: { filterValue: 'value' },
      emails: ['example@example.com'],
      group_tags: ['sales'],
      hierarchy_level_name: 'Customer',
    };
    const created = await create(body);
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.success, 1);
    assert.equal(created.json.new_customer, true);
    const customer = created.json.customer;
    assert.match(customer.token, /^ugt_/);
    assert.deepEqual(
      { ...customer, token: undefined },
      {
        token: undefined,
        name: 'Example 1',
        provided_id: 'example_1',
        is_demo_group: false,
        emails: ['example@example.com'],
        group_tags: ['sales'],
        properties: { filterValue: 'value' },
        computed_properties: { filterValue: 'value' },
        access_group: 'Customer',
        parent_schema_datasource_mapping: { '40': '213', '134': '386' },
        computed_parent_schema_datasource_mapping: { '40': '213', '134': '386' },
        hierarchy_level: 'Customer',
        parent_provided_id: null,
      },
    );
    const again = await create({ ...body, name: 'Another name', emails: ['other@example.com'] });
    assert.equal(again.json.new_customer, false);
    assert.deepEqual(again.json.customer, customer, 'an existing customer is answered as it is');
    // The same group through this service's own interface: same token, same team, same properties.
    const viaUser = await api.getOrCreate({ user_group_id: 'example_1' });
    assert.equal(viaUser.json.new_user_group, false);
    assert.equal(viaUser.json.user_group.token, customer.token);
    assert.deepEqual(viaUser.json.user_group.properties, { filterValue: 'value' });
    const detail = await api.call('GET', undefined, { path: '/api/user_groups/example_1' });
    assert.equal(detail.status, 200, detail.text);
    assert.equal(Object.hasOwn(detail.json.user_group, 'emails'), false, "/api/user's answers do not change");
  });

  it('sees a group made through /api/user as a customer without a level, and is seen by it', async () => {
    await api.getOrCreate({ user_group_id: 'plain', name: 'Plain', properties: { a: 1 } });
    const customer = (await get('plain')).json.customer;
    assert.equal(customer.hierarchy_level, null);
    assert.deepEqual(customer.emails, []);
    assert.deepEqual(customer.group_tags, []);
    assert.deepEqual(customer.parent_schema_datasource_mapping, {});
    assert.equal(customer.is_demo_group, false);
    assert.equal((await get('nobody')).status, 404);
    assert.equal((await get('nobody')).json.success, 0);
  });

  it('inherits from parents at higher levels, and refuses a parent that is not higher', async () => {
    assert.equal(
      (await create({ provided_id: 'holding', name: 'Holding', properties: { region: 'eu' }, mapping: { '40': 'main' } })).status,
      200,
    );
    const team = await create({ provided_id: 'team-a', name: 'Team A', parent_provided_id: 'holding', properties: { plan: 'pro' } });
    assert.equal(team.status, 200, team.text);
    assert.equal(team.json.customer.hierarchy_level, 'Team', 'the level below the parent when none is named');
    assert.deepEqual(team.json.customer.computed_properties, { region: 'eu', plan: 'pro' });
    assert.deepEqual(team.json.customer.properties, { plan: 'pro' });
    assert.deepEqual(team.json.customer.computed_parent_schema_datasource_mapping, { '40': 'main' });
    assert.equal(team.json.customer.parent_provided_id, 'holding');
    const sameLevel = await create({ provided_id: 'peer', name: 'Peer', parent_provided_id: 'team-a', hierarchy_level_name: 'Team' });
    assert.equal(sameLevel.status, 400, sameLevel.text);
    assert.match(sameLevel.json.error.message, /strictly higher level/);
    assert.equal((await create({ provided_id: 'x', name: 'X', hierarchy_level_name: 'Galaxy' })).status, 400);
    assert.equal((await create({ provided_id: 'x', name: 'X', parent_provided_id: 'nobody' })).status, 400);
    assert.equal((await get('peer')).status, 404, 'nothing was created');
    // A level change must keep the children below: Team A has none yet, the holding has Team A.
    const lowered = await update({ provided_id: 'holding', hierarchy_level_name: 'User' });
    assert.equal(lowered.status, 400, lowered.text);
    assert.equal((await get('holding')).json.customer.hierarchy_level, 'Customer');
  });

  it('updates: lists replaced, [] empties them, null clears properties, tags must exist', async () => {
    const updated = await update({
      provided_id: 'example_1',
      properties: { filterValue: 'new_value' },
      emails: ['new_email@example.com'],
      group_tags: ['engineers', 'sales'],
      is_demo_group: true,
    });
    assert.equal(updated.status, 200, updated.text);
    const customer = updated.json.customer;
    assert.deepEqual(customer.group_tags, ['engineers', 'sales']);
    assert.deepEqual(customer.emails, ['new_email@example.com']);
    assert.deepEqual(customer.properties, { filterValue: 'new_value' });
    assert.equal(customer.is_demo_group, true);
    assert.equal(customer.name, 'Example 1', 'what is not sent stays');
    const unknownTag = await update({ provided_id: 'example_1', group_tags: ['nope'] });
    assert.equal(unknownTag.status, 400, unknownTag.text);
    assert.match(unknownTag.json.error.message, /"nope"/);
    const emptied = await update({ provided_id: 'example_1', group_tags: [], emails: null, properties: null });
    assert.equal(emptied.status, 200, emptied.text);
    assert.deepEqual(emptied.json.customer.group_tags, []);
    assert.deepEqual(emptied.json.customer.emails, []);
    assert.deepEqual(emptied.json.customer.properties, {});
    assert.equal((await update({ provided_id: 'nobody', name: 'N' })).status, 404);
    assert.equal((await update({ provided_id: 'example_1', emails: ['not an address'] })).status, 400);
    const records = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 200 });
    const first = records.find((r) => r.action === 'user_group.updated' && r.fields.includes('emails'));
    assert.ok(first, 'audited with the fields it set');
    assert.deepEqual(first.fields, ['properties', 'emails', 'is_demo_group', 'group_tags']);
  });

  it('renames a customer: same token, the old id gone, its sessions revoked, a taken id refused', async () => {
    const before = (await create({ provided_id: 'old-id', name: 'Old' })).json.customer;
    await create({ provided_id: 'taken', name: 'Taken' });
    assert.equal((await update({ provided_id: 'old-id', new_provided_id: 'taken' })).status, 409);
    const renamed = await update({ provided_id: 'old-id', new_provided_id: 'new-id', name: 'New' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json.customer.provided_id, 'new-id');
    assert.equal(renamed.json.customer.token, before.token, 'the token stays');
    assert.equal((await get('old-id')).status, 404);
    assert.equal((await api.rotate(before.token)).status, 200, 'the token is sealed under the new id and still rotates');
    const feed = await api.call('GET', undefined, { path: '/api/embed_sessions/revocations' });
    assert.ok(
      feed.json.revocations.some(
        (r: { user_group_id: string; reason: string }) => r.user_group_id === 'old-id' && r.reason === 'user_group_renamed',
      ),
      feed.text,
    );
    const events = await api.call('GET', undefined, { path: '/api/events?limit=1000' });
    const renameEvent = events.json.events.find(
      (e: { data: { previous_user_group_id?: string } }) => e.data.previous_user_group_id === 'old-id',
    );
    assert.equal(renameEvent?.type, 'user_group.updated');
    assert.equal(renameEvent?.data.user_group_id, 'new-id');
  });

  it('refreshes a token: the old one ends at once', async () => {
    const before = (await create({ provided_id: 'rotating', name: 'R' })).json.customer;
    const refreshed = await post('/api/refresh_customer_token/', { current_token: before.token });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.json.customer.token, before.token);
    assert.equal((await post('/api/refresh_customer_token/', { current_token: before.token })).status, 404);
    assert.equal((await api.getOrCreate({ user_group_id: 'rotating' })).json.user_group.token, refreshed.json.customer.token);
  });

  it('deletes by token, refusing a customer with children', async () => {
    const parent = (await create({ provided_id: 'p', name: 'P' })).json.customer;
    const child = (await create({ provided_id: 'c', name: 'C', parent_provided_id: 'p' })).json.customer;
    const refused = await api.call('DELETE', { current_token: parent.token }, { path: '/api/delete_customer/' });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.success, 0);
    assert.equal((await api.call('DELETE', { current_token: child.token }, { path: '/api/delete_customer/' })).status, 200);
    const deleted = await api.call('DELETE', { current_token: parent.token }, { path: '/api/delete_customer/' });
    assert.deepEqual(deleted.json, { success: 1 });
    assert.equal((await get('p')).status, 404);
    assert.equal((await api.call('DELETE', { current_token: parent.token }, { path: '/api/delete_customer/' })).status, 404);
    assert.equal((await api.call('DELETE', {}, { path: '/api/delete_customer/' })).status, 400);
  });

  it('lists: v1 whole with its filters, v2 in numbered pages with the total', async () => {
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    for (let i = 0; i < 5; i++) assert.equal((await create({ provided_id: `t${i}`, name: `T${i}` }, testing)).status, 200);
    const v1 = await testing.call('GET', undefined, { path: '/api/customers/' });
    assert.equal(v1.status, 200, v1.text);
    assert.deepEqual(
      v1.json.customers.map((c: { provided_id: string }) => c.provided_id),
      ['t0', 't1', 't2', 't3', 't4'],
    );
    assert.ok(v1.json.customers.every((c: { access_group: string }) => c.access_group === 'Testing'));
    const page2 = await testing.call('GET', undefined, { path: '/v2/api/customers/?pageSize=2&page=2' });
    assert.equal(page2.status, 200, page2.text);
    assert.equal(page2.json.total_count, 5);
    assert.deepEqual(
      page2.json.results.customers.map((c: { provided_id: string }) => c.provided_id),
      ['t2', 't3'],
    );
    const last = await testing.call('GET', undefined, { path: '/v2/api/customers/?page_size=2&page=3' });
    assert.equal(last.json.results.customers.length, 1);
    const past = await testing.call('GET', undefined, { path: '/v2/api/customers/?page=9' });
    assert.deepEqual(past.json.results.customers, []);
    assert.equal((await testing.call('GET', undefined, { path: '/v2/api/customers/?page_size=1001' })).status, 400);
    assert.equal((await testing.call('GET', undefined, { path: '/v2/api/customers/?page=0' })).status, 400);
    assert.equal((await testing.call('GET', undefined, { path: '/v2/api/customers/?page_size=2&pageSize=3' })).status, 400);
    const children = await api.call('GET', undefined, { path: '/api/customers/?parent_provided_id=holding' });
    assert.deepEqual(
      children.json.customers.map((c: { provided_id: string }) => c.provided_id),
      ['team-a'],
    );
    assert.equal(children.json.customers[0].computed_properties.region, 'eu', 'a page inherits like a single read');
    const teams = await api.call('GET', undefined, { path: '/v2/api/customers/?hierarchy_level_name=Team' });
    assert.equal(teams.json.total_count, 1);
    const inBody = await api.call('GET', { parent_provided_id: 'holding' }, { path: '/api/customers/' });
    assert.deepEqual(
      inBody.json.customers.map((c: { provided_id: string }) => c.provided_id),
      ['team-a'],
      'the filters the reference declares as body fields are read from a body too',
    );
    assert.equal((await api.call('GET', { parent: 'holding' }, { path: '/api/customers/' })).status, 400, 'never ignored');
    assert.equal((await api.call('GET', { parent_provided_id: 'x' }, { path: '/api/customers/?parent_provided_id=holding' })).status, 400);
    assert.equal((await new ApiClient(server.url, undefined).call('GET', undefined, { path: '/v2/api/customers/' })).status, 401);
    assert.equal((await api.call('HEAD', undefined, { path: '/v2/api/customers/' })).status, 200);
    assert.equal((await api.call('GET', undefined, { path: '/api/customers/?parent_provided_id=nobody' })).status, 404);
    assert.equal((await api.call('GET', undefined, { path: '/api/customers/?hierarchy_level_name=Galaxy' })).status, 400);
  });

  it('authenticates with Explo-Authorization, and keeps read-only keys to reads', async () => {
    const readOnly = await server.client({ environment: 'Customer', access: 'read-only' });
    const explo = (path: string, body?: unknown, method = 'POST') =>
      new ApiClient(server.url, undefined).call(method, body, { path, headers: { 'explo-authorization': `Token ${readOnly.key}` } });
    const read = await explo('/api/get_customer/', { provided_id: 'example_1' });
    assert.equal(read.status, 200, read.text);
    assert.equal((await explo('/api/group_tags/', undefined, 'GET')).status, 200);
    for (const [path, body] of [
      ['/api/create_customer/', { provided_id: 'ro', name: 'RO' }],
      ['/api/update_customer/', { provided_id: 'example_1', name: 'RO' }],
      ['/api/refresh_customer_token/', { current_token: read.json.customer.token }],
      ['/api/create_group_tag/', { name: 'ro' }],
      ['/api/generate_jwt/', { provided_id: 'example_1' }],
    ] as const) {
      const refused = await explo(path, body);
      assert.equal(refused.status, 403, `${path}: ${refused.text}`);
      assert.equal(refused.json.success, 0);
    }
    const wrongKey = await new ApiClient(server.url, undefined).call(
      'POST',
      { provided_id: 'example_1' },
      {
        path: '/api/get_customer/',
        headers: { 'explo-authorization': 'Token ugk_not_a_key' },
      },
    );
    assert.equal(wrongKey.status, 401);
  });

  it('refuses malformed bodies with 400 in the error shape', async () => {
    for (const [path, body, message] of [
      ['/api/create_customer/', { name: 'No id' }],
      ['/api/create_customer/', { provided_id: 'a', name: 'A', surprise: true }],
      ['/api/create_customer/', { provided_id: 'a', name: 'A', emails: 'a@b.c' }],
      ['/api/create_customer/', { provided_id: 'a', name: 'A', is_demo_group: 'yes' }],
      ['/api/create_customer/', { provided_id: 'a' }, /"name" is required to create a customer; no customer with this "provided_id"/],
      ['/api/update_customer/', { provided_id: 'example_1', group_tags: [1] }],
      ['/api/get_customer/', {}],
      ['/api/refresh_customer_token/', {}],
      ['/api/generate_jwt/', { embed_id: 'x' }],
      ['/api/create_group_tag/', { name: '' }],
      ['/api/create_group_tag/', { name: 'a\nb' }],
      ['/api/rename_group_tag/', { name: 'sales' }],
    ] as [string, unknown, RegExp?][]) {
      const refused = await post(path, body);
      assert.equal(refused.status, 400, `${path} ${JSON.stringify(body)}: ${refused.text}`);
      assert.equal(refused.json.success, 0);
      assert.match(refused.json.error.message, message ?? /./);
    }
    const withoutSlash = await api.call('POST', { provided_id: 'a', name: 'A' }, { path: '/api/create_customer' });
    assert.equal(withoutSlash.status, 404, "the reference's paths end with a slash, and only those are served");
    const notJson = await api.call('POST', undefined, { path: '/api/create_customer/', headers: { 'content-type': 'application/json' } });
    assert.equal(notJson.status, 400);
  });

  it('answers configure_customer_portal with a clear 400: there is no portal here', async () => {
    const refused = await post('/api/configure_customer_portal/', {
      dashboard_embed_id: 'Ab123CdefG',
      provided_id: 'example_1',
      emails: ['apple@explo.co'],
    });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error.message, /no customer portal/);
  });
});

describe('the Customer API: generate_jwt', () => {
  const server = buildForSuite();
  before(async () => {
    assert.equal(
      (
        await server.api.call(
          'POST',
          { provided_id: 'customer_1', name: 'C1', properties: { region: 'eu' } },
          { path: '/api/create_customer/' },
        )
      ).status,
      200,
    );
  });
  const generate = (body: unknown) => server.api.call('POST', body, { path: '/api/generate_jwt/' });

  it("mints an embed session verified with the environment's JWKS, carrying every field it names", async () => {
    const answer = await generate({
      provided_id: 'customer_1',
      embed_id: 'abcde',
      expiration: 'PT1H',
      rb_allowed_features: ['flt', 'srt'],
      disable_editable_section_editing: true,
      chart_id: 'chart-7',
      embed_origin: 'https://your-domain.com/',
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.success, 1);
    const { payload } = await jwtVerify(answer.json.jwt, createRemoteJWKSet(new URL('/.well-known/jwks.json', server.url)), {
      issuer: 'user-group-service',
      audience: 'embedded-dashboards',
    });
    assert.equal(payload.sub, 'customer_1');
    assert.equal(payload.dsh, 'abcde');
    assert.deepEqual(payload.org, ['https://your-domain.com']);
    assert.deepEqual(payload.rbc, ['flt', 'srt']);
    assert.equal(payload.des, true);
    assert.equal(payload.cht, 'chart-7');
    assert.equal(payload.exp! - payload.iat!, 3600);
    assert.deepEqual(payload.props, { region: 'eu' });
    // A renewal carries the dashboard options on.
    const renewed = await server.api.call('POST', { token: answer.json.jwt }, { path: '/api/embed_sessions/renew' });
    assert.equal(renewed.status, 201, renewed.text);
    const claims = JSON.parse(Buffer.from(renewed.json.embed_session.token.split('.')[1], 'base64url').toString('utf8'));
    assert.deepEqual([claims.rbc, claims.des, claims.cht], [['flt', 'srt'], true, 'chart-7']);
  });

  it('lasts 24 hours by default and takes null as not given', async () => {
    const answer = await generate({ provided_id: 'customer_1', embed_id: null, key_id: null, expiration: null });
    assert.equal(answer.status, 200, answer.text);
    const claims = JSON.parse(Buffer.from(answer.json.jwt.split('.')[1], 'base64url').toString('utf8'));
    assert.equal(claims.exp - claims.iat, 86_400);
    assert.equal(claims.dsh, undefined);
  });

  it('refuses a key_id that is not the active signing key, bad durations and origins, and unknown customers', async () => {
    const jwks = await server.api.call('GET', undefined, { path: '/.well-known/jwks.json' });
    const kid = jwks.json.keys.at(-1).kid as string;
    const withKid = await generate({ provided_id: 'customer_1', key_id: kid });
    assert.equal(withKid.status, 200, `the active kid is accepted: ${withKid.text}`);
    const cases: [unknown, RegExp][] = [
      [{ provided_id: 'customer_1', key_id: 'aa111111-1a11-111a-aa11-1aaaa11a1a11' }, /key_id/],
      [{ provided_id: 'customer_1', expiration: '1 hour' }, /ISO 8601/],
      [{ provided_id: 'customer_1', expiration: 'P1M' }, /months/],
      [{ provided_id: 'customer_1', expiration: 'PT30S' }, /from 60/],
      [{ provided_id: 'customer_1', expiration: 'P2D' }, /86400/],
      [{ provided_id: 'customer_1', embed_origin: 'https://your-domain.com/app' }, /more than an origin/],
      [{ provided_id: 'customer_1', embed_origin: 'http://your-domain.com/' }, /https/],
      [{ provided_id: 'customer_1', embed_origin: 'not a url' }, /origin/],
    ];
    for (const [body, message] of cases) {
      const refused = await generate(body);
      assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
      assert.match(refused.json.error.message, message);
    }
    assert.equal((await generate({ provided_id: 'nobody' })).status, 404);
  });
});
