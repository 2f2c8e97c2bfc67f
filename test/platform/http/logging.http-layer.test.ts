import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiKeyFormat } from '../../../src/api-keys/api-key.js';
import { userGroupTokenFormat } from '../../../src/user-groups/user-group-token.js';
import { createLogger } from '../../../src/platform/http/logger.js';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest } from '../../helpers/http-client.js';

describe('logs', () => {
  const server = buildForSuite();

  it('carry a request id per request, echoed as X-Request-Id, and never a token, key or Authorization header', async () => {
    const { api } = server;
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

  it('carry their time as ISO 8601 in UTC, as every time ugs prints (not epoch milliseconds; issue 43)', async () => {
    await server.api.call('GET', undefined, { path: '/healthz' });
    const lines = server.logs
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { time: unknown });
    assert.ok(lines.length > 0);
    for (const { time } of lines) assert.match(String(time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('never carry a key or token sent in a URL, valid or malformed, and neither do error answers', async () => {
    const { api } = server;
    const token = (await api.getOrCreate({ user_group_id: 'in-url', name: 'In URL' })).json.user_group.token as string;
    const otherKey = apiKeyFormat.generate();
    const secrets = [api.key!, token, otherKey, 'ugsk_badkey', 'ugt_short'];
    const paths = [
      `/api/user?user_group_id=${token}&name=${api.key}`,
      `/api/user?user_group_id=in-url&current_token=${token}&key=ugsk_badkey`,
      `/api/user?user_group_id=ugt_short&name=x`,
      `/api/user?mapping=%7B%22${otherKey}%22%3A1%7D&user_group_id=in-url`,
      `/api/user_groups/${token}`,
      `/no/such/path/${token}?key=${api.key}`,
      `/api/user/${otherKey}`,
    ];
    const answers = [];
    for (const path of paths) answers.push(await api.call('GET', undefined, { path }));
    answers.push(await rawRequest(server.url, { method: 'GET', path: `/healthz?token=${token}`, headers: { expect: `ugt-${token}` } }));
    assert.ok(
      answers.some((res) => res.status === 404) && answers.some((res) => res.status === 200),
      answers.map((res) => res.status).join(),
    );

    const logs = server.logs.join('');
    for (const path of ['/api/user?user_group_id=', '/no/such/path/'])
      assert.ok(logs.includes(path), `the request line for ${path} is logged`);
    for (const secret of secrets) assert.equal(logs.includes(secret), false, `${secret} reached the log`);
    assert.match(logs, /ugt_\[redacted\]/);
    for (const res of answers.filter((r) => r.status >= 400)) {
      for (const secret of secrets) assert.equal(res.text.includes(secret), false, `an error answer echoes ${secret}: ${res.text}`);
    }
  });

  it("never carry an embed token (a JWT) or a webhook secret, in a URL's path or query, whole or cut short", async () => {
    const { api } = server;
    await api.getOrCreate({ user_group_id: 'jwt-in-url', name: 'JWT in URL' });
    const minted = await api.call('POST', { user_group_id: 'jwt-in-url' }, { path: '/api/embed_sessions' });
    const jwt = minted.json.embed_session.token as string;
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const paths = [
      `/embed?token=${jwt}`,
      `/api/embed_sessions/${jwt}`,
      `/no/such/path?t=${header}.${payload}`,
      `/dashboard#${jwt}`,
      `/api/webhooks?secret=${webhookSecret}`,
      `/api/webhooks?secret=${encodeURIComponent('whsec_a+b/c=')}`,
    ];
    for (const path of paths) await api.call('GET', undefined, { path });
    const logs = server.logs.join('');
    assert.ok(logs.includes('/api/embed_sessions/eyJ[redacted]'), 'the request line is logged, the token redacted');
    for (const secret of [payload, signature, `${header}.`, webhookSecret.slice(6), '+b/c', '2Bb']) {
      assert.equal(logs.includes(secret), false, `${secret} reached the log`);
    }
  });

  it('redact keys and tokens from error messages and any other logged text', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    const token = userGroupTokenFormat.generate();
    const key = apiKeyFormat.generate();
    const error = Object.assign(new Error(`lookup failed for ${token}`), { detail: `Key (provided_id)=(${key}) already exists` });
    logger.child({ reqId: 'r1' }).error({ err: error, note: { nested: [`url /x?t=${token}`] } }, `failed with ${key}`);
    const text = lines.join('');
    assert.ok(text.includes('lookup failed for ugt_[redacted]'), text);
    for (const secret of [token, key]) assert.equal(text.includes(secret), false, text);
    assert.doesNotThrow(() => JSON.parse(text), 'still one JSON line');
  });

  it('keeps a sane caller X-Request-Id and replaces an unsafe one', async () => {
    const kept = await rawRequest(server.url, { method: 'GET', path: '/healthz', headers: { 'x-request-id': 'caller-123' } });
    assert.equal(kept.headers['x-request-id'], 'caller-123');
    const replaced = await rawRequest(server.url, { method: 'GET', path: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(replaced.headers['x-request-id'], 'bad id with spaces');
  });
});
