import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import type { ApiClient } from '../../helpers/http-client.js';

/** Explo's Group Tag API: tags by name, per environment; a rename or deletion reaches every customer carrying the tag. */
describe('the Customer API: group tags', () => {
  const server = buildForSuite();
  let api: ApiClient;
  const post = (path: string, body: unknown, client: ApiClient = api) => client.call('POST', body, { path });
  const tagsOf = async (providedId: string) => (await post('/api/get_customer/', { provided_id: providedId })).json.customer.group_tags;
  before(() => {
    api = server.api;
  });

  it('creates, lists (oldest first) and refuses a name taken in the environment', async () => {
    for (const name of ['marketing', 'designer', 'engineers', 'sales']) {
      const created = await post('/api/create_group_tag/', { name });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(created.json, { success: 1, group_tag: { name } });
    }
    const taken = await post('/api/create_group_tag/', { name: 'sales' });
    assert.equal(taken.status, 409);
    assert.equal(taken.json.success, 0);
    const listed = await api.call('GET', undefined, { path: '/api/group_tags/' });
    assert.deepEqual(listed.json, {
      success: 1,
      group_tags: [{ name: 'marketing' }, { name: 'designer' }, { name: 'engineers' }, { name: 'sales' }],
    });
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    assert.deepEqual((await testing.call('GET', undefined, { path: '/api/group_tags/' })).json.group_tags, [], 'per environment');
    assert.equal((await post('/api/create_group_tag/', { name: 'sales' }, testing)).status, 200);
  });

  it('renames a tag on every customer carrying it, keeping each list in order', async () => {
    await post('/api/create_customer/', { provided_id: 'a', name: 'A', group_tags: ['engineers', 'sales'] });
    await post('/api/create_customer/', { provided_id: 'b', name: 'B', group_tags: ['sales'] });
    await post('/api/create_customer/', { provided_id: 'c', name: 'C', group_tags: ['designer'] });
    const renamed = await post('/api/rename_group_tag/', { name: 'sales', new_name: 'new tag' });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(renamed.json, { success: 1, group_tag: { name: 'new tag' } });
    assert.deepEqual(await tagsOf('a'), ['engineers', 'new tag']);
    assert.deepEqual(await tagsOf('b'), ['new tag']);
    assert.deepEqual(await tagsOf('c'), ['designer']);
    assert.equal((await post('/api/rename_group_tag/', { name: 'sales', new_name: 'x' })).status, 404);
    assert.equal((await post('/api/rename_group_tag/', { name: 'designer', new_name: 'engineers' })).status, 409);
    assert.equal(
      (await post('/api/rename_group_tag/', { name: 'designer', new_name: 'designer' })).status,
      200,
      'to its own name: nothing to do',
    );
    const events = (await api.call('GET', undefined, { path: '/api/events?limit=1000' })).json.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
    const renameEvent = events.find((e) => e.type === 'group_tag.renamed');
    assert.deepEqual(renameEvent?.data, { api_environment_tag: 'Customer', group_tag: 'sales', new_group_tag: 'new tag' });
    const carriersUpdated = events.filter((e) => e.type === 'user_group.updated' && (e.data.changed as string[]).includes('group_tags'));
    assert.deepEqual(
      carriersUpdated.map((e) => e.data.user_group_id),
      ['a', 'b'],
    );
  });

  it('deletes a tag and takes it off every customer; a missing tag is a 404', async () => {
    const deleted = await post('/api/delete_group_tag/', { name: 'new tag' });
    assert.deepEqual(deleted.json, { success: 1 });
    assert.deepEqual(await tagsOf('a'), ['engineers']);
    assert.deepEqual(await tagsOf('b'), []);
    assert.equal((await post('/api/delete_group_tag/', { name: 'new tag' })).status, 404);
    assert.equal((await post('/api/create_customer/', { provided_id: 'd', name: 'D', group_tags: ['new tag'] })).status, 400);
    const records = await server.services.audit.listAuditRecords({ environment: 'Customer', limit: 1000 });
    assert.deepEqual(records.find((r) => r.action === 'group_tag.deleted')?.fields, ['group_tag=new tag']);
  });

  it('keeps read-only keys to the list, and other key kinds out', async () => {
    const readOnly = await server.client({ environment: 'Customer', access: 'read-only' });
    assert.equal((await readOnly.call('GET', undefined, { path: '/api/group_tags/' })).status, 200);
    for (const [path, body] of [
      ['/api/create_group_tag/', { name: 'ro' }],
      ['/api/rename_group_tag/', { name: 'engineers', new_name: 'ro' }],
      ['/api/delete_group_tag/', { name: 'engineers' }],
    ] as const) {
      assert.equal((await post(path, body, readOnly)).status, 403, path);
    }
    for (const access of ['embed', 'dashboard'] as const) {
      const client = await server.client({ environment: 'Customer', access });
      assert.equal((await client.call('GET', undefined, { path: '/api/group_tags/' })).status, 403, access);
    }
  });
});
