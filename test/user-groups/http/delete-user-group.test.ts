import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';

describe('DELETE /api/user', () => {
  const server = buildForSuite();

  it('deletes the group: its token stops working, and get-or-create then makes a new group with a new team_id and token', async () => {
    const { api } = server;
    const old = (await api.getOrCreate({ user_group_id: 'doomed', name: 'Doomed' })).json.user_group;
    const res = await api.call('DELETE', { user_group_id: 'doomed' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { success: 1 });
    assert.equal((await api.rotate(old.token)).status, 404, 'the old token stopped working');
    assert.equal((await api.call('GET', undefined, { path: '/api/user_groups/doomed' })).status, 404);
    const reborn = (await api.getOrCreate({ user_group_id: 'doomed', name: 'Reborn' })).json;
    assert.equal(reborn.new_user_group, true);
    assert.ok(reborn.user_group.team_id > old.team_id, 'a new team_id, never a reused one');
    assert.notEqual(reborn.user_group.token, old.token);
  });

  it('answers 404 for an absent group or one of the other environment', async () => {
    const { api } = server;
    await api.getOrCreate({ user_group_id: 'customer-only', name: 'C' });
    const testing = await server.client({ environment: 'Testing' });
    assert.equal((await testing.call('DELETE', { user_group_id: 'customer-only' })).status, 404);
    assert.equal((await api.call('DELETE', { user_group_id: 'never-was' })).json.error.code, 'not_found');
    assert.equal((await api.getOrCreate({ user_group_id: 'customer-only' })).json.new_user_group, false, 'still there');
  });

  it('is refused to read-only keys (403) and audited for read-write ones', async () => {
    const { api } = server;
    await api.getOrCreate({ user_group_id: 'kept', name: 'Kept' });
    const reader = await server.client({ access: 'read-only' });
    const refused = await reader.call('DELETE', { user_group_id: 'kept' });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.error.code, 'forbidden');
    await api.call('DELETE', { user_group_id: 'kept' });
    const records = await server.services.audit.listAuditRecords({ group: { providedId: 'kept' }, limit: 10 });
    assert.deepEqual(
      records.map((r) => [r.action, r.keyId]),
      [
        ['user_group.created', api.keyId],
        ['user_group.deleted', api.keyId],
      ],
    );
  });

  it('validates its body like every write', async () => {
    const { api } = server;
    assert.equal((await api.call('DELETE', {})).status, 400);
    assert.equal((await api.call('DELETE', { user_group_id: 5 })).status, 400);
  });
});
