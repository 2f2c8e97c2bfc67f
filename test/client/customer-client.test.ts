import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError, type WireRequest } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

const failsWith = (status: number, code: string) => (e: unknown) =>
  e instanceof UserGroupServiceError && e.status === status && e.code === code;

describe('UserGroupClient.customers and .groupTags against a live server', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  let key: string;
  /** Every request the client sent, as it sent it (through fetch: the service's real socket). */
  const sent: WireRequest[] = [];
  const clientWith = async (access: 'read-only' | 'embed') =>
    new UserGroupClient({
      baseUrl: server.url,
      apiKey: (await server.services.apiKeys.create({ environment: 'Customer', access })).key,
      retries: 0,
    });
  before(async () => {
    key = (await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' })).key;
    client = new UserGroupClient({
      baseUrl: server.url,
      apiKey: key,
      retries: 0,
      transport: async (request) => {
        sent.push(request);
        const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
        return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
      },
    });
  });

  it('gets or creates, reads, updates, lists, refreshes and deletes customers under the wire names, the same groups as /api/user', async () => {
    await client.groupTags.create('sales');
    await client.groupTags.create('vip');
    const made = await client.customers.getOrCreate({
      provided_id: 'acme',
      name: 'Acme',
      mapping: { '40': '213' },
      properties: { region: 'eu' },
      is_demo_group: true,
      emails: ['ops@acme.example'],
      group_tags: ['sales'],
    });
    assert.equal(made.new_customer, true);
    assert.deepEqual(Object.keys(made.customer), [
      'token',
      'name',
      'provided_id',
      'is_demo_group',
      'emails',
      'group_tags',
      'properties',
      'computed_properties',
      'access_group',
      'parent_schema_datasource_mapping',
      'computed_parent_schema_datasource_mapping',
      'hierarchy_level',
      'parent_provided_id',
    ]);
    const acme = made.customer;
    assert.deepEqual(
      [
        acme.provided_id,
        acme.is_demo_group,
        acme.emails,
        acme.group_tags,
        acme.access_group,
        acme.hierarchy_level,
        acme.parent_provided_id,
      ],
      ['acme', true, ['ops@acme.example'], ['sales'], 'Customer', 'Customer', null],
    );
    assert.deepEqual([acme.parent_schema_datasource_mapping, acme.computed_properties], [{ '40': '213' }, { region: 'eu' }]);
    assert.deepEqual(await client.customers.getOrCreate({ provided_id: 'acme', name: 'Ignored' }), { new_customer: false, customer: acme });
    // The same group, with the same token, through /api/user (GET with a body: the default node transport).
    const userApi = new UserGroupClient({ baseUrl: server.url, apiKey: key, retries: 0 });
    assert.equal((await userApi.getOrCreate({ user_group_id: 'acme' })).user_group.token, acme.token);

    const { customer: ann } = await client.customers.getOrCreate({
      provided_id: 'acme-ann',
      name: 'Ann',
      parent_provided_id: 'acme',
      properties: { seat: 3 },
    });
    assert.deepEqual([ann.hierarchy_level, ann.parent_provided_id], ['User', 'acme']);
    assert.deepEqual(
      [ann.computed_properties, ann.computed_parent_schema_datasource_mapping],
      [{ region: 'eu', seat: 3 }, { '40': '213' }],
    );
    assert.deepEqual(await client.customers.get('acme-ann'), ann);
    await assert.rejects(client.customers.get('nobody'), failsWith(404, 'not_found'));
    await assert.rejects(
      client.customers.getOrCreate({ provided_id: 'x', name: 'X', group_tags: ['nope'] }),
      failsWith(400, 'invalid_request'),
    );

    const changed = await client.customers.update({
      provided_id: 'acme',
      emails: ['a@acme.example'],
      group_tags: ['vip'],
      is_demo_group: false,
    });
    assert.deepEqual(
      [changed.emails, changed.group_tags, changed.is_demo_group, changed.name],
      [['a@acme.example'], ['vip'], false, 'Acme'],
    );
    // null clears lists and leaves the name as it is.
    const cleared = await client.customers.update({ provided_id: 'acme', emails: null, group_tags: null, name: null });
    assert.deepEqual([cleared.emails, cleared.group_tags, cleared.name, cleared.token], [[], [], 'Acme', acme.token]);
    await assert.rejects(
      client.customers.update({ provided_id: 'acme-ann', hierarchy_level_name: 'Customer' }),
      failsWith(400, 'invalid_request'),
    );
    const renamed = await client.customers.update({ provided_id: 'acme-ann', new_provided_id: 'acme-bob' });
    assert.deepEqual([renamed.provided_id, renamed.token], ['acme-bob', ann.token]);

    const first = await client.customers.list({ page_size: 1 });
    assert.deepEqual([first.results.customers.map((c) => c.provided_id), first.total_count], [['acme'], 2]);
    const second = await client.customers.list({ page: 2, page_size: 1 });
    assert.deepEqual([second.results.customers.map((c) => c.provided_id), second.total_count], [['acme-bob'], 2]);
    assert.deepEqual((await client.customers.list({ page: 3, page_size: 1 })).results.customers, []);
    const children = await client.customers.list({ parent_provided_id: 'acme' });
    assert.deepEqual([children.results.customers, children.total_count], [[renamed], 1]);
    assert.deepEqual((await client.customers.list({ hierarchy_level_name: 'Customer' })).results.customers, [cleared]);
    await assert.rejects(client.customers.list({ parent_provided_id: 'nobody' }), failsWith(404, 'not_found'));
    await assert.rejects(client.customers.list({ page_size: 1001 }), failsWith(400, 'invalid_request'));
    assert.deepEqual(await client.customers.listAll(), [cleared, renamed]);
    assert.deepEqual(await client.customers.listAll({ parent_provided_id: 'acme' }), [renamed]);
    assert.deepEqual(await client.customers.listAll({ hierarchy_level_name: 'User' }), [renamed]);

    const refreshed = await client.customers.refreshToken(acme.token);
    assert.notEqual(refreshed.token, acme.token);
    assert.deepEqual(refreshed, { ...cleared, token: refreshed.token });
    await assert.rejects(client.customers.refreshToken(acme.token), failsWith(404, 'not_found'));

    await assert.rejects(client.customers.delete(refreshed.token), failsWith(409, 'conflict'));
    await client.customers.delete(renamed.token);
    await client.customers.delete(refreshed.token);
    await assert.rejects(client.customers.get('acme'), failsWith(404, 'not_found'));
    await assert.rejects(client.customers.delete(refreshed.token), failsWith(404, 'not_found'));
  });

  it('lists, creates, renames and deletes group tags, rewriting the customers that carry them', async () => {
    await client.groupTags.create('east');
    await client.customers.getOrCreate({ provided_id: 'globex', name: 'Globex', group_tags: ['east'] });
    assert.deepEqual((await client.groupTags.list()).map((tag) => tag.name).slice(-1), ['east']);
    await assert.rejects(client.groupTags.create('east'), failsWith(409, 'conflict'));

    assert.deepEqual(await client.groupTags.rename('east', 'emea'), { name: 'emea' });
    assert.deepEqual((await client.customers.get('globex')).group_tags, ['emea']);
    await assert.rejects(client.groupTags.rename('east', 'apac'), failsWith(404, 'not_found'));
    await assert.rejects(client.groupTags.rename('emea', 'sales'), failsWith(409, 'conflict'));

    await client.groupTags.delete('emea');
    assert.deepEqual((await client.customers.get('globex')).group_tags, []);
    assert.ok(!(await client.groupTags.list()).some((tag) => tag.name === 'emea'));
    await assert.rejects(client.groupTags.delete('emea'), failsWith(404, 'not_found'));
  });

  it("generates a JWT the environment's JWKS verifies, carrying what it was asked; embed keys generate, read-only keys only read", async () => {
    await client.customers.getOrCreate({ provided_id: 'initech', name: 'Initech', properties: { region: 'us' } });
    const jwt = await client.customers.generateJwt({
      provided_id: 'initech',
      embed_id: 'dash-1',
      expiration: 'PT1H',
      chart_id: 'chart-7',
      rb_allowed_features: ['flt'],
      disable_editable_section_editing: true,
      embed_origin: 'https://app.example.com/',
    });
    const { payload } = await jwtVerify(jwt, createRemoteJWKSet(new URL('/.well-known/jwks.json', server.url)));
    assert.deepEqual(
      [payload.sub, payload.dsh, payload.cht, payload.rbc, payload.des, payload.org, payload.props, payload.exp! - payload.iat!],
      ['initech', 'dash-1', 'chart-7', ['flt'], true, ['https://app.example.com'], { region: 'us' }, 3600],
    );
    await assert.rejects(client.customers.generateJwt({ provided_id: 'initech', expiration: 'P1Y' }), failsWith(400, 'invalid_request'));
    await assert.rejects(client.customers.generateJwt({ provided_id: 'nobody' }), failsWith(404, 'not_found'));

    const embed = await clientWith('embed');
    assert.equal(typeof (await embed.customers.generateJwt({ provided_id: 'initech' })), 'string');
    const readOnly = await clientWith('read-only');
    assert.equal((await readOnly.customers.get('initech')).provided_id, 'initech');
    assert.ok((await readOnly.groupTags.list()).length > 0);
    await assert.rejects(readOnly.customers.update({ provided_id: 'initech', name: 'No' }), failsWith(403, 'forbidden'));
    await assert.rejects(readOnly.groupTags.create('ro'), failsWith(403, 'forbidden'));
    await assert.rejects(readOnly.customers.generateJwt({ provided_id: 'initech' }), failsWith(403, 'forbidden'));
  });

  it("sends Authorization: Token with the client's key on every call, to the reference's paths", () => {
    assert.ok(sent.length > 30);
    for (const request of sent) {
      assert.equal(request.headers.authorization, `Token ${key}`);
      assert.equal(request.headers['explo-authorization'], undefined);
      assert.match(new URL(request.url).pathname, /^\/(v2\/)?api\/[a-z_]+\/$/);
    }
    const paths = new Set(sent.map((request) => `${request.method} ${new URL(request.url).pathname}`));
    for (const path of [
      'POST /api/create_customer/',
      'POST /api/get_customer/',
      'POST /api/update_customer/',
      'DELETE /api/delete_customer/',
      'POST /api/refresh_customer_token/',
      'GET /v2/api/customers/',
      'GET /api/customers/',
      'POST /api/generate_jwt/',
      'GET /api/group_tags/',
      'POST /api/create_group_tag/',
      'POST /api/rename_group_tag/',
      'POST /api/delete_group_tag/',
    ])
      assert.ok(paths.has(path), `${path} was never sent`);
  });
});
