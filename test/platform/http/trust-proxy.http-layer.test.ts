import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { apiKeyFormat } from '../../../src/api-keys/api-key.js';
import { build, type TestApp } from '../../helpers/build.js';
import { rawRequest } from '../../helpers/http-client.js';

/** A request with a made-up key, as if forwarded for `client` (no header when undefined). */
function badKeyFrom(server: TestApp, client: string | undefined) {
  const headers: Record<string, string> = { authorization: `Token ${apiKeyFormat.generate()}` };
  if (client !== undefined) headers['x-forwarded-for'] = client;
  return rawRequest(server.url, { method: 'GET', path: '/api/user', headers }).then((res) => res.status);
}

/** The remoteAddress of the completed-request log line of the answer with this X-Request-Id (written once the answer is sent: waited for).
 * */
async function loggedAddress(server: TestApp, requestId: unknown): Promise<string | undefined> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const line = server.logs.find((l) => l.includes(`"reqId":"${String(requestId)}"`) && l.includes('request completed'));
    if (line !== undefined) return (JSON.parse(line) as { req: { remoteAddress: string } }).req.remoteAddress;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/**
 * UGS_TRUST_PROXY: behind a trusted proxy the client is the address it
 * forwards for (X-Forwarded-For, read from the right past trusted hops), for
 * the failed-auth throttle, the log line and the audit log; from anywhere
 * else X-Forwarded-For means nothing.
 */
describe('clients behind a proxy', () => {
  describe('from a trusted proxy', () => {
    const start = (t: TestContext) => build(t, { trustedProxies: ['127.0.0.1'], limits: { authFailuresPerMinute: 2 } });

    it('throttles failed authentication per forwarded client, and serves a valid key from a throttled one', async (t) => {
      const server = await start(t);
      assert.deepEqual(
        [await badKeyFrom(server, '203.0.113.1'), await badKeyFrom(server, '203.0.113.1'), await badKeyFrom(server, '203.0.113.1')],
        [401, 401, 429],
      );
      assert.equal(await badKeyFrom(server, '203.0.113.2'), 401, 'another client behind the same proxy has its own count');
      assert.equal(await badKeyFrom(server, undefined), 401, 'the proxy itself too');
      // A client cannot pick its address by sending its own X-Forwarded-For: the proxy appends the real one, which is what counts.
      assert.equal(await badKeyFrom(server, '198.51.100.1, 203.0.113.1'), 429);
      const { api } = server;
      const served = await api.call('GET', { user_group_id: 'a', name: 'A' }, { headers: { 'x-forwarded-for': '203.0.113.1' } });
      assert.equal(served.status, 200);
    });

    it('logs the forwarded client address', async (t) => {
      const server = await start(t);
      const res = await rawRequest(server.url, {
        method: 'GET',
        path: '/healthz',
        headers: { 'x-forwarded-for': '198.51.100.23, 203.0.113.9' },
      });
      assert.equal(await loggedAddress(server, res.headers['x-request-id']), '203.0.113.9');
    });

    it('records the forwarded client address in the audit log', async (t) => {
      const server = await start(t);
      const { api } = server;
      const forwarded = { headers: { 'x-forwarded-for': '203.0.113.77' } };
      const created = await api.call('GET', { user_group_id: 'audited', name: 'Audited' }, forwarded);
      assert.equal(created.status, 200);
      assert.equal((await api.call('PUT', { user_group_id: 'audited', name: 'Renamed' }, forwarded)).status, 200);
      assert.equal((await api.rotate(created.json.user_group.token)).status, 200);
      assert.equal((await api.call('DELETE', { user_group_id: 'audited' }, { headers: { 'x-forwarded-for': '2001:db8::5' } })).status, 200);
      const records = await server.services.audit.listAuditRecords({ group: { providedId: 'audited' }, limit: 10 });
      assert.deepEqual(
        records.map((r) => [r.action, r.clientAddress]),
        [
          ['user_group.created', '203.0.113.77'],
          ['user_group.updated', '203.0.113.77'],
          ['user_group.token_rotated', '127.0.0.1'],
          ['user_group.deleted', '2001:db8::5'],
        ],
      );
    });
  });

  for (const [title, trustedProxies] of [
    ['when no proxy is trusted (the default)', undefined],
    ['from an address that is not a trusted proxy', ['10.0.0.0/8', 'fc00::/7']],
  ] as const) {
    it(`ignores X-Forwarded-For ${title}: the connecting address is the client`, async (t) => {
      const server = await build(t, { trustedProxies: trustedProxies && [...trustedProxies], limits: { authFailuresPerMinute: 2 } });
      assert.deepEqual(
        [await badKeyFrom(server, '203.0.113.1'), await badKeyFrom(server, '203.0.113.2'), await badKeyFrom(server, '203.0.113.3')],
        [401, 401, 429],
      );
      const res = await rawRequest(server.url, { method: 'GET', path: '/healthz', headers: { 'x-forwarded-for': '203.0.113.9' } });
      assert.equal(await loggedAddress(server, res.headers['x-request-id']), '127.0.0.1');
      const { api } = server;
      await api.call('GET', { user_group_id: 'direct', name: 'Direct' }, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      const [record] = await server.services.audit.listAuditRecords({ group: { providedId: 'direct' }, limit: 1 });
      assert.equal(record?.clientAddress, '127.0.0.1');
    });
  }
});
