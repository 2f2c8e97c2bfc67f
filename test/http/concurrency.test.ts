import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('concurrent get-or-create', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('50 concurrent calls for one new id give one creation, one team_id, one token', async () => {
    const api = await server.client();
    const results = await Promise.all(Array.from({ length: 50 }, () => api.getOrCreate({ user_group_id: 'burst', name: 'Burst' })));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(results.filter((r) => r.json.new_user_group === true).length, 1);
    assert.equal(new Set(results.map((r) => r.json.user_group.team_id)).size, 1);
    assert.equal(new Set(results.map((r) => r.json.user_group.token)).size, 1);
  });
});
