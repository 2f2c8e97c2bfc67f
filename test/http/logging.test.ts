import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../helpers/http-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('logs', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('carry a request id per request, echoed as X-Request-Id, and never a token, key or Authorization header', async () => {
    const api = await server.client();
    const created = await api.getOrCreate({ user_group_id: 'logged', name: 'Logged' });
    const rotated = await api.rotate(created.json.user_group.token);
    await api.rotate(created.json.user_group.token); // a failing call with a secret in the body
    await rawRequest(server.url, { method: 'GET', path: '/api/user', headers: { authorization: 'Token ugsk_badkey' } });
    const id = created.headers['x-request-id'];
    assert.ok(typeof id === 'string' && id.length > 0);

    const logs = server.logs.join('');
    assert.ok(logs.includes(`"reqId":"${id}"`), 'log lines carry the request id');
    for (const secret of [api.key!, created.json.user_group.token, rotated.json.user_group.token, 'ugsk_badkey']) {
      assert.equal(logs.includes(secret), false, 'a secret reached the log');
    }
    assert.equal(/authorization/i.test(logs), false);
  });

  it('keeps a sane caller X-Request-Id and replaces an unsafe one', async () => {
    const kept = await rawRequest(server.url, { method: 'GET', path: '/healthz', headers: { 'x-request-id': 'caller-123' } });
    assert.equal(kept.headers['x-request-id'], 'caller-123');
    const replaced = await rawRequest(server.url, { method: 'GET', path: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(replaced.headers['x-request-id'], 'bad id with spaces');
  });
});
