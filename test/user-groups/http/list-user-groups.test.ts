import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import type { ApiClient } from '../../helpers/http-client.js';

const ITEM_KEYS = ['team_id', 'provided_id', 'name', 'properties', 'mapping', 'api_environment_tag', 'created_at', 'updated_at'];

async function listAll(api: ApiClient, query: string): Promise<{ pages: number; items: { provided_id: string; team_id: number }[] }> {
  const items = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await api.call('GET', undefined, {
      path: `/api/user_groups?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    });
    assert.equal(res.status, 200, res.text);
    items.push(...res.json.user_groups);
    cursor = res.json.next_cursor;
    pages++;
  } while (cursor !== null && pages < 100);
  return { pages, items };
}

describe('GET /api/user_groups', () => {
  const server = buildForSuite({ clients: { testing: { environment: 'Testing' } } });
  before(async () => {
    const { api } = server;
    for (let i = 0; i < 25; i++)
      await api.getOrCreate({
        user_group_id: `list-${String(i).padStart(2, '0')}`,
        name: i % 2 ? `Odd ${i}` : `Even ${i}`,
        mapping: { '1': i },
        properties: { i },
      });
    await server.clients.testing.getOrCreate({ user_group_id: 'list-testing', name: 'Other environment' });
  });

  it("lists the environment's groups newest first, 20 by default, with the item fields and no token", async () => {
    const res = await server.api.call('GET', undefined, { path: '/api/user_groups' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.json.success, 1);
    assert.equal(res.json.user_groups.length, 20);
    assert.equal(typeof res.json.next_cursor, 'string');
    const first = res.json.user_groups[0];
    assert.deepEqual(Object.keys(first), ITEM_KEYS);
    assert.equal(first.provided_id, 'list-24');
    assert.deepEqual(first.mapping, { '1': 24 });
    assert.deepEqual(first.properties, { i: 24 });
    assert.equal(first.api_environment_tag, 'Customer');
    assert.equal(res.text.includes('ugt_'), false, 'no token in a listing');
    const ids = res.json.user_groups.map((g: { team_id: number }) => g.team_id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
  });

  it('pages with an opaque cursor through every group exactly once; null cursor on the last page', async () => {
    const { pages, items } = await listAll(server.api, 'limit=7');
    assert.equal(pages, 4);
    assert.equal(items.length, 25);
    assert.equal(new Set(items.map((g) => g.provided_id)).size, 25);
    assert.equal(
      items.some((g) => g.provided_id === 'list-testing'),
      false,
      'other environments stay hidden',
    );
  });

  it('stays stable when groups are created while paging', async () => {
    const first = await server.api.call('GET', undefined, { path: '/api/user_groups?limit=10' });
    await server.api.getOrCreate({ user_group_id: 'list-new-during-paging', name: 'New' });
    const second = await server.api.call('GET', undefined, {
      path: `/api/user_groups?limit=10&cursor=${encodeURIComponent(first.json.next_cursor)}`,
    });
    const seen = [...first.json.user_groups, ...second.json.user_groups].map((g: { provided_id: string }) => g.provided_id);
    assert.equal(new Set(seen).size, seen.length, 'no group twice');
    assert.equal(seen.includes('list-new-during-paging'), false, 'a newer group does not shift older pages');
  });

  it('filters by a prefix of user_group_id or name, case-sensitively', async () => {
    const byId = await listAll(server.api, 'q=list-1');
    assert.deepEqual(byId.items.map((g) => g.provided_id).sort(), [
      'list-10',
      'list-11',
      'list-12',
      'list-13',
      'list-14',
      'list-15',
      'list-16',
      'list-17',
      'list-18',
      'list-19',
    ]);
    const byName = await listAll(server.api, 'q=Odd%202');
    assert.deepEqual(byName.items.map((g) => g.provided_id).sort(), ['list-21', 'list-23']);
    assert.equal((await listAll(server.api, 'q=odd')).items.length, 0);
    assert.equal((await listAll(server.api, 'q=%25')).items.length, 0, '% is a character, not a wildcard');
  });

  it('lets a read-only key list', async () => {
    const reader = await server.client({ access: 'read-only' });
    assert.equal((await reader.call('GET', undefined, { path: '/api/user_groups?limit=1' })).status, 200);
  });

  it('refuses a bad limit or cursor with 400 invalid_request', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'cursor=bm90LWEtY3Vyc29y', 'cursor=%%%']) {
      const res = await server.api.call('GET', undefined, { path: `/api/user_groups?${query}` });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.json.error.code, 'invalid_request');
    }
  });

  it('needs a key', async () => {
    const res = await server.api.call('GET', undefined, { path: '/api/user_groups', headers: { authorization: '' } });
    assert.equal(res.status, 401);
  });
});
