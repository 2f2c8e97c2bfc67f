import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { apiKeyFormat } from '../../../src/api-keys/api-key.js';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest } from '../../helpers/http-client.js';

const body = { user_group_id: 'auth-target', name: 'Target' };

describe('authentication and access', () => {
  // The key cache on, as in production, so repeated calls take the cached path.
  const server = buildForSuite({ keyCacheTtlMs: 60_000, clients: { reader: { access: 'read-only' } } });
  let token: string;
  before(async () => {
    token = (await server.api.getOrCreate(body)).json.user_group.token;
  });

  async function expect401(headers: Record<string, string>) {
    const res = await rawRequest(server.url, {
      method: 'GET',
      path: '/api/user',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.equal(res.json.success, 0);
    assert.equal(res.json.error.code, 'unauthenticated');
    assert.ok(res.json.error.message.length > 0);
  }

  it('refuses a missing Authorization header', () => expect401({}));
  it('refuses an empty or schemeless header', async () => {
    await expect401({ authorization: '' });
    await expect401({ authorization: apiKeyFormat.generate() });
    await expect401({ authorization: `Basic ${apiKeyFormat.generate()}` });
  });
  it('refuses a malformed key', () => expect401({ authorization: 'Token ugsk_nope' }));

  it('takes the key from Explo-Authorization, as the Customer API documents it, with the same access', async () => {
    const call = (headers: Record<string, string>, method = 'GET') =>
      rawRequest(server.url, { method, path: '/api/user', headers: { 'content-type': 'application/json', ...headers }, body });
    const read = await call({ 'explo-authorization': `Token ${server.api.key}` });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.user_group.provided_id, 'auth-target');
    const both = await call({ 'explo-authorization': `Token ${server.api.key}`, authorization: `Token ${server.api.key}` });
    assert.equal(both.status, 200, 'the same key in both headers');
    const reader = server.clients.reader.key!;
    const refused = await call({ 'explo-authorization': `Token ${reader}` }, 'PUT');
    assert.equal(refused.status, 403, 'a read-only key is read-only through either header');
    await expect401({ 'explo-authorization': `Token ${apiKeyFormat.generate()}` });
    await expect401({ 'explo-authorization': '' });
    await expect401({ 'explo-authorization': reader });
    await expect401({ 'explo-authorization': `Token ${reader}`, authorization: `Token ${server.api.key}` });
  });
  it('refuses a well-formed key that was never issued', () => expect401({ authorization: `Token ${apiKeyFormat.generate()}` }));

  it('refuses a revoked key at once', async () => {
    const api = await server.client();
    assert.equal((await api.getOrCreate(body)).status, 200);
    await server.services.apiKeys.revoke(api.keyId);
    await expect401({ authorization: `Token ${api.key}` });
  });

  it("answers a revoked key and a never-issued key with the same 401 body, so a key's past cannot be probed", async () => {
    const api = await server.client();
    assert.equal((await api.getOrCreate(body)).status, 200);
    await server.services.apiKeys.revoke(api.keyId);
    const call = (key: string) =>
      rawRequest(server.url, {
        method: 'GET',
        path: '/api/user',
        headers: { 'content-type': 'application/json', authorization: `Token ${key}` },
        body,
      });
    const revoked = await call(api.key!);
    const unknown = await call(apiKeyFormat.generate());
    assert.equal(revoked.status, 401);
    assert.equal(unknown.status, 401);
    // The same body but for the request id, which is each answer's own.
    const withoutId = (json: { error: { request_id?: string } }) => ({ ...json, error: { ...json.error, request_id: undefined } });
    assert.deepEqual(withoutId(revoked.json), withoutId(unknown.json));
  });

  it('accepts Token and Bearer, any case', async () => {
    const { api } = server;
    for (const scheme of ['Token', 'Bearer', 'token', 'BEARER']) {
      const res = await rawRequest(server.url, {
        method: 'GET',
        path: '/api/user',
        headers: { 'content-type': 'application/json', authorization: `${scheme} ${api.key}` },
        body,
      });
      assert.equal(res.status, 200, scheme);
    }
  });

  it('checks the key before reading the body', async () => {
    const res = await rawRequest(server.url, { method: 'PUT', path: '/api/user', headers: { 'content-type': 'text/plain' }, body: 'x' });
    assert.equal(res.status, 401);
  });

  describe('read-only keys', () => {
    it('may get an existing group', async () => {
      const res = await server.clients.reader.getOrCreate(body);
      assert.equal(res.status, 200);
      assert.equal(res.json.new_user_group, false);
      assert.equal(res.json.user_group.token, token);
    });

    it('may not create, update or rotate (403)', async () => {
      const { reader } = server.clients;
      for (const res of [
        await reader.getOrCreate({ user_group_id: 'ro-new', name: 'New' }),
        await reader.update({ user_group_id: body.user_group_id, name: 'Renamed' }),
        await reader.rotate(token),
      ]) {
        assert.equal(res.status, 403);
        assert.equal(res.json.success, 0);
        assert.equal(res.json.error.code, 'forbidden');
      }
      const writer = await server.client();
      const after = (await writer.getOrCreate(body)).json.user_group;
      assert.equal(after.name, 'Target', 'the refused update changed nothing');
      assert.equal(after.token, token, 'the refused rotation changed nothing');
      assert.equal((await writer.getOrCreate({ user_group_id: 'ro-new', name: 'x' })).json.new_user_group, true);
    });
  });

  it('needs no key for health checks', async () => {
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/healthz' })).status, 200);
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/readyz' })).status, 200);
  });
});
