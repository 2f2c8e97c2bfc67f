import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';

describe('PUT /api/user (update)', () => {
  const server = buildForSuite();

  it('replaces the given fields, keeps the token, and adds api_environment_tag', async () => {
    const { api } = server;
    const created = (await api.getOrCreate({ user_group_id: 'u1', name: 'Before', mapping: { '1': 'a' }, properties: { p: 1 } })).json
      .user_group;
    const res = await api.update({ user_group_id: 'u1', name: 'After', properties: { p: 2 } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.json.success, 1);
    assert.deepEqual(res.json.user_group, {
      team_id: created.team_id,
      token: created.token,
      name: 'After',
      provided_id: 'u1',
      properties: { p: 2 },
      api_environment_tag: 'Customer',
    });
    const read = (await api.getOrCreate({ user_group_id: 'u1' })).json;
    assert.equal(read.new_user_group, false);
    assert.equal(read.user_group.name, 'After');
    assert.equal(read.user_group.token, created.token);
  });

  it('leaves fields that are not given untouched', async () => {
    const { api } = server;
    await api.getOrCreate({ user_group_id: 'u2', name: 'Keep', properties: { keep: true } });
    const res = await api.update({ user_group_id: 'u2', mapping: { '9': 9 } });
    assert.equal(res.json.user_group.name, 'Keep');
    assert.deepEqual(res.json.user_group.properties, { keep: true });
  });

  it('clears properties with null', async () => {
    const { api } = server;
    await api.getOrCreate({ user_group_id: 'u3', name: 'Clear', properties: { gone: 1 } });
    const res = await api.update({ user_group_id: 'u3', properties: null });
    assert.equal(res.status, 200);
    assert.equal('properties' in res.json.user_group, false);
    const read = await api.getOrCreate({ user_group_id: 'u3' });
    assert.equal('properties' in read.json.user_group, false);
  });

  it('answers 404 for an unknown group and creates nothing', async () => {
    const { api } = server;
    const res = await api.update({ user_group_id: 'never-created', name: 'X' });
    assert.equal(res.status, 404);
    assert.equal(res.json.success, 0);
    assert.equal(res.json.error.code, 'not_found');
    assert.equal((await api.getOrCreate({ user_group_id: 'never-created', name: 'Now' })).json.new_user_group, true);
  });

  it('requires user_group_id', async () => {
    const { api } = server;
    const res = await api.update({ name: 'No id' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, 'invalid_request');
    assert.match(res.json.error.message, /"user_group_id" is required/);
  });
});
