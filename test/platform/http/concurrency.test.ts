import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from '../../helpers/build.js';

describe('concurrent get-or-create', () => {
  it('50 concurrent calls for one new id give one creation, one team_id, one token', async (t) => {
    const { api } = await build(t);
    const results = await Promise.all(Array.from({ length: 50 }, () => api.getOrCreate({ user_group_id: 'burst', name: 'Burst' })));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(results.filter((r) => r.json.new_user_group === true).length, 1);
    assert.equal(new Set(results.map((r) => r.json.user_group.team_id)).size, 1);
    assert.equal(new Set(results.map((r) => r.json.user_group.token)).size, 1);
  });
});
