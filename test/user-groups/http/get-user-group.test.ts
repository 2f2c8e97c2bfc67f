import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';

describe('GET /api/user_groups/{user_group_id}', () => {
  const server = buildForSuite();

  it('reads a group without its token, in the item form', async () => {
    const { api } = server;
    const created = (await api.getOrCreate({ user_group_id: 'read/me é', name: 'Read me', mapping: { '40': '213' } })).json.user_group;
    const res = await api.call('GET', undefined, { path: `/api/user_groups/${encodeURIComponent('read/me é')}` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.success, 1);
    assert.equal(res.json.user_group.team_id, created.team_id);
    assert.equal(res.json.user_group.provided_id, 'read/me é');
    assert.deepEqual(res.json.user_group.mapping, { '40': '213' });
    assert.equal(res.json.user_group.properties, null);
    assert.equal(res.text.includes(created.token), false);
  });

  it('answers 404 for an absent group, or one of the other environment, and never creates', async () => {
    const { api } = server;
    const missing = await api.call('GET', undefined, { path: '/api/user_groups/absent' });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'not_found');
    assert.equal((await api.getOrCreate({ user_group_id: 'absent', name: 'Now' })).json.new_user_group, true, 'the read created nothing');
    const testing = await server.client({ environment: 'Testing' });
    assert.equal((await testing.call('GET', undefined, { path: '/api/user_groups/absent' })).status, 404);
  });
});
