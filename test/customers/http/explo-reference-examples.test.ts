import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest, type ApiClient } from '../../helpers/http-client.js';

/**
 * Every request example of Explo's Customer API reference (docs.explo.co, API Reference: Customer Endpoints, Group
 * Tag Endpoints, Generate JWT), replayed as the reference writes it, in the reference's header, and the answer
 * compared with the reference's example answer. Where this service answers otherwise, the difference is the one
 * docs/customer-api.md lists, asserted here as such:
 *  - `token` is this service's token (the reference shows a placeholder); `access_group` is the key's environment
 *    ("Customer", the reference's examples show "Production"); each customer also carries `parent_provided_id`;
 *  - the reference's customer examples hold invalid JSON for the mappings (`{"40": "213": "134": 386"}`): compared
 *    with the request's mapping, `{"40": "213", "134": "386"}`, as its v2 example writes it;
 *  - its email examples are Cloudflare's obfuscation placeholder on the rendered pages: the earlier pages' addresses
 *    (example@example.com, new_email@example.com) are sent;
 *  - the refresh and delete examples carry 64 "a" characters for a token: sent as they are (404: no customer holds
 *    it), then with the customer's real token; the refresh example posts to update_customer/, a documented mistake:
 *    sent to refresh_customer_token/;
 *  - Generate JWT's key_id names one of Explo's embed secrets, which this service has not: 400, then the same
 *    request without it;
 *  - Configure Portal: 400, this service has no portal.
 * The levels are the reference's examples' own ("Customer", "Level 1", "Level 2"), set with
 * UGS_CUSTOMER_HIERARCHY_LEVELS.
 */
const EXPLO = (key: string) => ({ 'explo-authorization': `Token ${key}` });
const CUSTOMER_FIELDS = [
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
];

describe("Explo's Customer API reference, every request example replayed", () => {
  const server = buildForSuite({ hierarchyLevels: ['Customer', 'Level 1', 'Level 2'] });
  let api: ApiClient;
  /** A call as the reference's curl examples make it: Explo-Authorization and Content-Type (GET too), no Authorization. */
  const explo = (method: string, path: string, body?: unknown) =>
    rawRequest(server.url, { method, path, headers: { ...EXPLO(api.key!), 'content-type': 'application/json' }, body });
  /** The reference's example customer answer, with this service's token and environment, and the parent it adds. */
  const documented = (token: string, fields: Record<string, unknown>) => ({
    token,
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
    ...fields,
  });
  let token: string;
  before(() => {
    api = server.api;
  });

  it('Create Group Tag: {"name": "tag"}', async () => {
    const answer = await explo('POST', '/api/create_group_tag/', { name: 'tag' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, { success: 1, group_tag: { name: 'tag' } });
  });

  it('Rename Group Tag: {"name": "tag", "new_name": "new tag"}', async () => {
    const answer = await explo('POST', '/api/rename_group_tag/', { name: 'tag', new_name: 'new tag' });
    assert.deepEqual(answer.json, { success: 1, group_tag: { name: 'new tag' } });
  });

  it("List Group Tags: the example answer's tags", async () => {
    for (const name of ['marketing', 'designer', 'engineers', 'sales']) await explo('POST', '/api/create_group_tag/', { name });
    await explo('POST', '/api/delete_group_tag/', { name: 'new tag' });
    const answer = await explo('GET', '/api/group_tags/');
    assert.deepEqual(answer.json, {
      success: 1,
      group_tags: [{ name: 'marketing' }, { name: 'designer' }, { name: 'engineers' }, { name: 'sales' }],
    });
  });

  it('Delete Group Tag: {"name": "tag"} (the example indents it with tabs)', async () => {
    await explo('POST', '/api/create_group_tag/', { name: 'tag' });
    const answer = await explo('POST', '/api/delete_group_tag/', '{\n\t\t"name": "tag"\n}');
    assert.deepEqual(answer.json, { success: 1 });
  });

  it('Get or Create Customer: the example request, then again', async () => {
    const request = {
      provided_id: 'example_1',
      name: 'Example 1',
      mapping: { '40': '213', '134': '386' },
      properties: { filterValue: 'value' },
      emails: ['example@example.com'],
      group_tags: ['sales'],
      hierarchy_level_name: 'Customer',
    };
    const answer = await explo('POST', '/api/create_customer/', request);
    assert.equal(answer.status, 200, answer.text);
    token = answer.json.customer.token;
    assert.deepEqual(answer.json, { success: 1, new_customer: true, customer: documented(token, {}) });
    assert.deepEqual((await explo('POST', '/api/create_customer/', request)).json, {
      success: 1,
      new_customer: false,
      customer: documented(token, {}),
    });
  });

  it('Get Customer: {"provided_id": "example_1"}', async () => {
    const answer = await explo('POST', '/api/get_customer/', { provided_id: 'example_1' });
    assert.deepEqual(answer.json, { success: 1, customer: documented(token, {}) });
  });

  it('Update Customer: the example request', async () => {
    const answer = await explo('POST', '/api/update_customer/', {
      provided_id: 'example_1',
      properties: { filterValue: 'new_value' },
      emails: ['new_email@example.com'],
      group_tags: ['engineers', 'sales'],
      hierarchy_level_name: 'Level 1',
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, {
      success: 1,
      customer: documented(token, {
        emails: ['new_email@example.com'],
        group_tags: ['engineers', 'sales'],
        properties: { filterValue: 'new_value' },
        computed_properties: { filterValue: 'new_value' },
        hierarchy_level: 'Level 1',
      }),
    });
  });

  it('[Deprecated] Get All Customers (v1): every customer with the fields of the example', async () => {
    await explo('POST', '/api/create_customer/', {
      provided_id: 'example_2',
      name: 'Example 2',
      mapping: { '40': '213', '134': '386' },
      properties: { filterValue: 'value' },
      emails: ['example2@example.com'],
      hierarchy_level_name: 'Level 2',
    });
    const answer = await explo('GET', '/api/customers/');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.success, 1);
    assert.deepEqual(
      answer.json.customers.map((c: Record<string, unknown>) => [c.name, c.provided_id, c.hierarchy_level, c.group_tags]),
      [
        ['Example 1', 'example_1', 'Level 1', ['engineers', 'sales']],
        ['Example 2', 'example_2', 'Level 2', []],
      ],
    );
    for (const customer of answer.json.customers) assert.deepEqual(Object.keys(customer), CUSTOMER_FIELDS);
    assert.equal(Object.hasOwn(answer.json, 'new_customer'), false, "the example's stray new_customer is not answered");
  });

  it('Get All Customers (v2): ?pageSize=2&page=1', async () => {
    const answer = await explo('GET', '/v2/api/customers/?pageSize=2&page=1');
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json), ['success', 'total_count', 'results'], 'success: 1 added, as in every answer here');
    assert.equal(answer.json.total_count, 2);
    assert.deepEqual(
      answer.json.results.customers.map((c: Record<string, unknown>) => c.provided_id),
      ['example_1', 'example_2'],
    );
    for (const customer of answer.json.results.customers) assert.deepEqual(Object.keys(customer), CUSTOMER_FIELDS);
  });

  it('Generate Embed JWT: the example (key_id refused), then without key_id', async () => {
    await explo('POST', '/api/create_customer/', { provided_id: 'customer_1', name: 'Customer 1' });
    const example = {
      provided_id: 'customer_1',
      embed_id: 'abcde',
      expiration: 'PT1H',
      key_id: 'aa111111-1a11-111a-aa11-1aaaa11a1a11',
      rb_allowed_features: ['flt', 'srt'],
      disable_editable_section_editing: true,
      embed_origin: 'https://your-domain.com/',
    };
    const refused = await explo('POST', '/api/generate_jwt/', example);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.success, 0);
    assert.match(refused.json.error.message, /"key_id"/);
    const withoutKeyId: Partial<typeof example> = { ...example };
    delete withoutKeyId.key_id;
    const answer = await explo('POST', '/api/generate_jwt/', withoutKeyId);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json), ['success', 'jwt']);
    assert.equal(answer.json.success, 1);
    assert.match(answer.json.jwt, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('Refresh Customer Token: the example token (64 "a": unknown), then the real one', async () => {
    const placeholder = await explo('POST', '/api/refresh_customer_token/', { current_token: 'a'.repeat(64) });
    assert.equal(placeholder.status, 404);
    assert.equal(placeholder.json.success, 0);
    const answer = await explo('POST', '/api/refresh_customer_token/', { current_token: token });
    assert.equal(answer.status, 200, answer.text);
    assert.notEqual(answer.json.customer.token, token);
    assert.deepEqual(answer.json, {
      success: 1,
      customer: documented(answer.json.customer.token, {
        emails: ['new_email@example.com'],
        group_tags: ['engineers', 'sales'],
        properties: { filterValue: 'new_value' },
        computed_properties: { filterValue: 'new_value' },
        hierarchy_level: 'Level 1',
      }),
    });
    token = answer.json.customer.token;
  });

  it('Configure Customer Portal: the example, refused with a 400 saying why', async () => {
    const answer = await explo('POST', '/api/configure_customer_portal/', {
      dashboard_embed_id: 'Ab123CdefG',
      provided_id: 'test_id_1',
      emails: ['apple@explo.co', 'orange@explo.co'],
    });
    assert.equal(answer.status, 400);
    assert.match(answer.json.error.message, /no customer portal/);
  });

  it('Delete Customer: the example token (64 "a": unknown), then the real one', async () => {
    const placeholder = await explo('DELETE', '/api/delete_customer/', { current_token: 'a'.repeat(64) });
    assert.equal(placeholder.status, 404);
    const answer = await explo('DELETE', '/api/delete_customer/', { current_token: token });
    assert.deepEqual(answer.json, { success: 1 });
    assert.equal((await explo('POST', '/api/get_customer/', { provided_id: 'example_1' })).status, 404);
  });
});
