import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServerProcess } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { Sandbox, stopServer } from './cli-support.js';

/** Far longer than the test: only the revocation itself can make the server look the key up again. */
const KEY_CACHE_TTL_MS = 60_000;

describe('ugs keys against a running server', () => {
  const sandbox = new Sandbox();
  let dataDir: string;
  let server: ServerProcess;

  before(async () => {
    dataDir = sandbox.dir();
    server = await sandbox.serve(dataDir, { UGS_KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) });
  });

  after(async () => {
    try {
      if (server) assert.equal(await stopServer(server, 'SIGTERM'), 0, server.output());
    } finally {
      await sandbox.cleanup();
    }
  });

  it('a key created while the server runs works at once, and its use is recorded', async () => {
    const { key, id } = await sandbox.createKey(dataDir);
    const api = new ApiClient(server.url, key);
    const res = await api.getOrCreate({ user_group_id: 'live-1', name: 'Live one' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.success, 1);
    assert.equal(res.json.new_user_group, true);
    assert.equal(res.json.user_group.provided_id, 'live-1');

    const { keys } = await sandbox.listKeys(dataDir);
    const view = keys.find((k) => k.id === id);
    assert.ok(view?.last_used_at, 'the server recorded the use where the CLI sees it');
    assert.ok(view.last_used_at >= view.created_at);
  });

  it('`ugs keys revoke` stops a key the running server has cached: the very next request is refused', async () => {
    const { key, id } = await sandbox.createKey(dataDir, ['--name', 'doomed']);
    const api = new ApiClient(server.url, key);
    for (const attempt of [1, 2]) {
      const answer = await api.getOrCreate({ user_group_id: 'revoked-later', name: 'Revoked later' });
      assert.equal(answer.status, 200, `attempt ${attempt}: ${answer.text}`);
    }

    const revoke = await sandbox.ugs(dataDir, ['keys', 'revoke', id]);
    assert.equal(revoke.code, 0, revoke.stderr);

    const res = await api.getOrCreate({ user_group_id: 'revoked-later' });
    assert.equal(res.status, 401, res.text);
    assert.equal(res.json.success, 0);
    assert.equal(res.json.error.code, 'unauthenticated');
    assert.equal(typeof res.json.error.message, 'string');
    assert.match(res.json.error.message, /revoked/);

    const write = await api.getOrCreate({ user_group_id: 'after-revoke', name: 'After revoke' });
    assert.equal(write.status, 401, 'nor can it create');
  });

  it('a --read-only key reads existing groups but cannot create one', async () => {
    const writer = new ApiClient(server.url, (await sandbox.createKey(dataDir)).key);
    const created = await writer.getOrCreate({ user_group_id: 'shared', name: 'Shared', properties: { plan: 'pro' } });
    assert.equal(created.status, 200, created.text);

    const reader = new ApiClient(server.url, (await sandbox.createKey(dataDir, ['--read-only'])).key);
    const read = await reader.getOrCreate({ user_group_id: 'shared', name: 'Ignored' });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.new_user_group, false);
    assert.deepEqual(read.json.user_group, created.json.user_group);

    const refused = await reader.getOrCreate({ user_group_id: 'not-yet', name: 'Not yet' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.success, 0);
    assert.equal(refused.json.error.code, 'forbidden');
    assert.equal(typeof refused.json.error.message, 'string');

    const check = await writer.getOrCreate({ user_group_id: 'not-yet', name: 'Not yet' });
    assert.equal(check.json.new_user_group, true, 'the refused call created nothing');
  });

  it('a --environment Testing key sees only Testing groups', async () => {
    const customer = new ApiClient(server.url, (await sandbox.createKey(dataDir)).key);
    const testing = new ApiClient(server.url, (await sandbox.createKey(dataDir, ['--environment', 'Testing'])).key);
    const inCustomer = await customer.getOrCreate({ user_group_id: 'twin', name: 'Twin' });
    const inTesting = await testing.getOrCreate({ user_group_id: 'twin', name: 'Twin' });
    assert.equal(inCustomer.status, 200, inCustomer.text);
    assert.equal(inTesting.status, 200, inTesting.text);
    assert.equal(inTesting.json.new_user_group, true, 'the Customer group is invisible to a Testing key');
    assert.notEqual(inTesting.json.user_group.team_id, inCustomer.json.user_group.team_id);
    assert.notEqual(inTesting.json.user_group.token, inCustomer.json.user_group.token);
  });
});
