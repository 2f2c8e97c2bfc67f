import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';

describe('POST /api/user (rotate token)', () => {
  const server = buildForSuite();

  it('returns the group with a new token and exactly the spec fields', async () => {
    const { api } = server;
    const created = (await api.getOrCreate({ user_group_id: 'r1', name: 'R1', properties: { p: 1 } })).json.user_group;
    const res = await api.rotate(created.token);
    assert.equal(res.status, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(res.json.user_group), ['team_id', 'token', 'name', 'provided_id', 'api_environment_tag']);
    assert.equal(res.json.user_group.team_id, created.team_id);
    assert.equal(res.json.user_group.provided_id, 'r1');
    assert.equal(res.json.user_group.api_environment_tag, 'Customer');
    assert.match(res.json.user_group.token, /^ugt_/);
    assert.notEqual(res.json.user_group.token, created.token);
  });

  it('stops the old token at once; the new one is what GET returns and can rotate again', async () => {
    const { api } = server;
    const old = (await api.getOrCreate({ user_group_id: 'r2', name: 'R2' })).json.user_group.token;
    const fresh = (await api.rotate(old)).json.user_group.token;
    const reuse = await api.rotate(old);
    assert.equal(reuse.status, 404);
    assert.equal(reuse.json.error.code, 'not_found');
    assert.equal((await api.getOrCreate({ user_group_id: 'r2' })).json.user_group.token, fresh);
    assert.equal((await api.rotate(fresh)).status, 200);
  });

  it('answers 404 for unknown and malformed tokens', async () => {
    const { api } = server;
    const someone = (await api.getOrCreate({ user_group_id: 'r3', name: 'R3' })).json.user_group.token;
    const typo = someone.slice(0, -1) + (someone.endsWith('a') ? 'b' : 'a');
    for (const token of [typo, 'ugt_short', 'not even close', `ugt_${'0'.repeat(49)}`]) {
      const res = await api.rotate(token);
      assert.equal(res.status, 404, token);
      assert.equal(res.json.error.code, 'not_found');
    }
  });

  it('lets exactly one of concurrent rotations with the same token win', async () => {
    const { api } = server;
    const token = (await api.getOrCreate({ user_group_id: 'r4', name: 'R4' })).json.user_group.token;
    const results = await Promise.all(Array.from({ length: 10 }, () => api.rotate(token)));
    const winners = results.filter((r) => r.status === 200);
    assert.equal(winners.length, 1);
    assert.ok(results.every((r) => r.status === 200 || r.status === 404));
    assert.equal((await api.getOrCreate({ user_group_id: 'r4' })).json.user_group.token, winners[0]!.json.user_group.token);
  });
});
