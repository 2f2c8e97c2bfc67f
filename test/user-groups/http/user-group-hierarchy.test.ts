import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite, type TestClient } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

const read = (api: TestClient, id: string) => api.call('GET', undefined, { path: `/api/user_groups/${encodeURIComponent(id)}` });
const listPath = (api: TestClient, path: string) => api.call('GET', undefined, { path });
const create = async (api: TestClient, id: string, extra: Record<string, unknown> = {}) => {
  const res = await api.getOrCreate({ user_group_id: id, name: `Group ${id}`, ...extra });
  assert.equal(res.status, 200, res.text);
  return res.json.user_group;
};

/** Collects every page of a listing path. */
async function allPages(api: TestClient, path: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await listPath(api, `${path}${sep}limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    ids.push(...res.json.user_groups.map((g: { provided_id: string }) => g.provided_id));
    cursor = res.json.next_cursor;
  } while (cursor);
  return ids;
}

describe('User group hierarchy', () => {
  const server = buildForSuite();

  it('shows the parent only on groups that have one, and reads ancestors and inherited values', async () => {
    const { api } = server;
    const root = await create(api, 'inh-root', {
      properties: { region: 'eu', plan: 'gold', tier: 1 },
      mapping: { '40': 'root-db', '41': 'shared' },
    });
    assert.deepEqual(Object.keys(root).sort(), ['name', 'properties', 'provided_id', 'team_id', 'token'], 'a root answers as before');
    const mid = await create(api, 'inh-mid', { parent_user_group_id: 'inh-root', properties: { plan: 'silver', tier: null } });
    assert.equal(mid.parent_user_group_id, 'inh-root');
    await create(api, 'inh-leaf', { parent_user_group_id: 'inh-mid', mapping: { '40': 'leaf-db' } });
    const hit = await api.getOrCreate({ user_group_id: 'inh-leaf' });
    assert.equal(hit.json.user_group.parent_user_group_id, 'inh-mid');

    const leaf = (await read(api, 'inh-leaf')).json.user_group;
    assert.deepEqual(leaf.ancestors, ['inh-root', 'inh-mid']);
    assert.deepEqual(leaf.effective_properties, { region: 'eu', plan: 'silver' }, 'the nearer group wins; a null hides the inherited key');
    assert.deepEqual(leaf.effective_mapping, { '40': 'leaf-db', '41': 'shared' });
    assert.equal(leaf.properties, null, 'its own values stay its own');
    const rootRead = (await read(api, 'inh-root')).json.user_group;
    assert.deepEqual(rootRead.ancestors, []);
    assert.equal(rootRead.parent_user_group_id, undefined);
    assert.deepEqual(rootRead.effective_properties, { region: 'eu', plan: 'gold', tier: 1 });
  });

  it('takes the parent from the query string when GET has no body', async () => {
    const { api } = server;
    await create(api, 'qs-parent');
    const res = await api.call('GET', undefined, { path: '/api/user?user_group_id=qs-child&name=Child&parent_user_group_id=qs-parent' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.user_group.parent_user_group_id, 'qs-parent');
  });

  it('refuses a missing parent (400), a cycle (409) and a chain deeper than five levels (409)', async () => {
    const { api } = server;
    const missing = await api.getOrCreate({ user_group_id: 'orphan', name: 'Orphan', parent_user_group_id: 'no-such-parent' });
    assert.match(assertError(missing, 400, 'invalid_request'), /no-such-parent/);
    assert.equal((await read(api, 'orphan')).status, 404, 'nothing created');
    await create(api, 'cy-1');
    await create(api, 'cy-2', { parent_user_group_id: 'cy-1' });
    assertError(await api.update({ user_group_id: 'cy-1', parent_user_group_id: 'cy-2' }), 409, 'conflict');
    assertError(await api.update({ user_group_id: 'cy-1', parent_user_group_id: 'cy-1' }), 409, 'conflict');
    for (const [id, parent] of [
      ['cy-3', 'cy-2'],
      ['cy-4', 'cy-3'],
      ['cy-5', 'cy-4'],
    ])
      await create(api, id!, { parent_user_group_id: parent });
    assertError(await api.getOrCreate({ user_group_id: 'cy-6', name: 'Too deep', parent_user_group_id: 'cy-5' }), 409, 'conflict');
    const testing = await server.client({ environment: 'Testing' });
    assertError(await testing.getOrCreate({ user_group_id: 'cross', name: 'Cross', parent_user_group_id: 'cy-1' }), 400, 'invalid_request');
  });

  it('moves, keeps the parent when the field is absent, detaches with null, and audits the move', async () => {
    const { api } = server;
    await create(api, 'mv-a');
    await create(api, 'mv-b');
    await create(api, 'mv-child', { parent_user_group_id: 'mv-a' });
    assert.equal(
      (await api.update({ user_group_id: 'mv-child', parent_user_group_id: 'mv-b' })).json.user_group.parent_user_group_id,
      'mv-b',
    );
    assert.equal((await api.update({ user_group_id: 'mv-child', name: 'Renamed' })).json.user_group.parent_user_group_id, 'mv-b');
    const detached = await api.update({ user_group_id: 'mv-child', parent_user_group_id: null });
    assert.equal(detached.status, 200, detached.text);
    assert.equal(detached.json.user_group.parent_user_group_id, undefined);
    const records = await server.services.audit.listAuditRecords({ group: { providedId: 'mv-child' }, limit: 10 });
    assert.deepEqual(
      records.map((r) => [r.action, r.fields]),
      [
        ['user_group.created', ['name']],
        ['user_group.moved', ['parent_user_group_id']],
        ['user_group.updated', ['name']],
        ['user_group.moved', ['parent_user_group_id']],
      ],
    );
  });

  it('lists children with ?parent= and the whole subtree with /descendants, paginated', async () => {
    const { api } = server;
    await create(api, 'ls-root');
    for (const [id, parent] of [
      ['ls-a', 'ls-root'],
      ['ls-b', 'ls-root'],
      ['ls-c', 'ls-root'],
      ['ls-a1', 'ls-a'],
      ['ls-a1x', 'ls-a1'],
    ])
      await create(api, id!, { parent_user_group_id: parent });
    assert.deepEqual(await allPages(api, '/api/user_groups?parent=ls-root'), ['ls-c', 'ls-b', 'ls-a']);
    assert.deepEqual(await allPages(api, '/api/user_groups/ls-root/descendants'), ['ls-a1x', 'ls-a1', 'ls-c', 'ls-b', 'ls-a']);
    assert.deepEqual(await allPages(api, '/api/user_groups/ls-a1x/descendants'), []);
    assertError(await listPath(api, '/api/user_groups/no-such/descendants'), 404, 'not_found');
    assertError(await listPath(api, '/api/user_groups?parent=no-such'), 404, 'not_found');
  });

  it('refuses to delete a group with children, and with cascade deletes the subtree: tokens stop working, sessions end, each is audited', async () => {
    const { api } = server;
    const root = await create(api, 'del-root');
    const child = await create(api, 'del-child', { parent_user_group_id: 'del-root' });
    const grandchild = await create(api, 'del-grandchild', { parent_user_group_id: 'del-child' });
    const feedStart = (await listPath(api, '/api/embed_sessions/revocations')).json.next_cursor;

    assertError(await api.call('DELETE', { user_group_id: 'del-root' }), 409, 'conflict');
    assert.equal((await read(api, 'del-grandchild')).status, 200, 'nothing deleted');
    const res = await api.call('DELETE', { user_group_id: 'del-root', cascade: true });
    assert.equal(res.status, 200, res.text);
    for (const group of [root, child, grandchild]) {
      assert.equal((await read(api, group.provided_id)).status, 404);
      assert.equal((await api.rotate(group.token)).status, 404, `${group.provided_id}'s token stopped working`);
      const records = await server.services.audit.listAuditRecords({ group: { providedId: group.provided_id }, limit: 10 });
      assert.equal(records.filter((r) => r.action === 'user_group.deleted').length, 1);
    }
    const feed = (await listPath(api, `/api/embed_sessions/revocations?after=${encodeURIComponent(feedStart)}&limit=1000`)).json;
    const ended = feed.revocations
      .filter((e: { reason: string }) => e.reason === 'user_group_deleted')
      .map((e: { user_group_id: string }) => e.user_group_id);
    assert.deepEqual(ended.sort(), ['del-child', 'del-grandchild', 'del-root']);
  });
});
