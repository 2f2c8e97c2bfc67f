import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

const mint = (api: ApiClient, body: unknown) => api.call('POST', body, { path: '/api/embed_sessions' });
const introspect = (api: ApiClient, token: unknown) => api.call('POST', { token }, { path: '/api/embed_sessions/introspect' });
const end = (api: ApiClient, sessionId: string) =>
  api.call('DELETE', undefined, { path: `/api/embed_sessions/${encodeURIComponent(sessionId)}` });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('POST /api/embed_sessions/introspect and DELETE /api/embed_sessions/{id}', () => {
  const server = buildForSuite();
  let api: ApiClient;
  before(async () => {
    api = server.api;
  });

  async function fresh(id: string, body: Record<string, unknown> = {}): Promise<{ token: string; session_id: string }> {
    await api.getOrCreate({ user_group_id: id, name: `Group ${id}`, properties: { region: 'eu' } });
    const res = await mint(api, { user_group_id: id, ...body });
    assert.equal(res.status, 201, res.text);
    return res.json.embed_session;
  }

  /** An isActive answer: 200, and `{"active":false}` exactly when inactive. */
  async function isActive(token: unknown, by: ApiClient = api): Promise<boolean> {
    const res = await introspect(by, token);
    assert.equal(res.status, 200, res.text);
    if (res.json.active === false) assert.deepEqual(res.json, { active: false }, 'an inactive answer says nothing more');
    return res.json.active;
  }

  it('answers active with every claim of a live token, to any key of its environment', async () => {
    const { token } = await fresh('live', {
      dashboard: 'sales',
      origins: ['https://app.example.com'],
      viewer: { id: 'ana', attributes: { sales_rep: 'ana', region: null } },
      include_descendants: true,
    });
    for (const claim of ['vid', 'vat', 'dsh', 'org', 'desc', 'anc']) assert.ok(claim in decodeJwt(token), `the token has ${claim}`);
    const res = await introspect(api, token);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { active: true, ...decodeJwt(token) });
    assert.equal(await isActive(token, await server.client({ access: 'read-only' })), true);
    assert.equal(await isActive(token, await server.client({ access: 'embed' })), true);
  });

  it('ends a session with DELETE: 200 twice, then inactive; 404 unknown or of the other environment; 403 read-only', async () => {
    const { token, session_id } = await fresh('ended');
    assertError(await end(await server.client({ access: 'read-only' }), session_id), 403, 'forbidden');
    assertError(await end(await server.client({ environment: 'Testing' }), session_id), 404, 'not_found');
    assert.equal(await isActive(token), true, 'neither refusal ended it');
    const first = await end(api, session_id);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json, { success: 1 });
    assert.equal(await isActive(token), false);
    assert.deepEqual((await end(api, session_id)).json, { success: 1 }, 'ending it again is not an error');
    assertError(await end(api, 'es_unknown'), 404, 'not_found');
    const other = await fresh('ended-by-embed');
    assert.equal((await end(await server.client({ access: 'embed' }), other.session_id)).status, 200, 'an embed key may end sessions');
    assert.equal(await isActive(other.token), false);
  });

  it('answers inactive for every session of a group once its token is rotated, and active for one minted after', async () => {
    const a = await fresh('rotated');
    const b = await mint(api, { user_group_id: 'rotated' });
    const token = (await api.getOrCreate({ user_group_id: 'rotated' })).json.user_group.token;
    assert.equal((await api.rotate(token)).status, 200);
    assert.equal(await isActive(a.token), false);
    assert.equal(await isActive(b.json.embed_session.token), false);
    assert.equal(await isActive((await mint(api, { user_group_id: 'rotated' })).json.embed_session.token), true);
  });

  it('answers inactive once the group is deleted, even after a group of the same id is created again', async () => {
    const { token } = await fresh('deleted');
    assert.equal((await api.call('DELETE', { user_group_id: 'deleted' })).status, 200);
    assert.equal(await isActive(token), false);
    await api.getOrCreate({ user_group_id: 'deleted', name: 'Reborn' });
    assert.equal(await isActive(token), false, 'the new group has a new token version');
  });

  it('answers inactive to a key of the other environment', async () => {
    const { token } = await fresh('customer-only');
    assert.equal(await isActive(token, await server.client({ environment: 'Testing' })), false);
  });

  it('answers inactive for a tampered payload, header or signature', async () => {
    const { token } = await fresh('tampered');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = decodeJwt(token);
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    for (const forged of [
      `${header}.${b64({ ...claims, props: { region: 'us' } })}.${signature}`,
      `${header}.${b64({ ...claims, exp: claims.exp! + 3600 })}.${signature}`,
      `${b64({ ...decodeProtectedHeader(token), typ: 'JWT' })}.${payload}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${header}.${payload}.`,
    ]) {
      assert.equal(await isActive(forged), false, forged.slice(0, 60));
    }
    assert.equal(await isActive(token), true, 'the original still is');
  });

  it('answers inactive for an expired token signed with the real key, and active for the same token unexpired', async () => {
    const { token } = await fresh('expired');
    const claims = decodeJwt(token);
    const key = server.services.signingKeys.Customer.active();
    const sign = (payload: JWTPayload) =>
      new SignJWT(payload).setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: 'embed+jwt' }).sign(key.privateKey);
    const now = Math.floor(Date.now() / 1000);
    assert.equal(
      await isActive(await sign({ ...claims, iat: now - 10, exp: now + 600 })),
      true,
      'control: a re-signed live token is active',
    );
    assert.equal(await isActive(await sign({ ...claims, iat: now - 7200, exp: now - 3600 })), false);
    assert.equal(await isActive(await sign({ ...claims, iat: now - 120, exp: now - 1 })), false);
  });

  it('answers inactive for garbage, an unsigned (alg none) token, an HS256 token keyed with the public key, and an unknown key', async () => {
    const { token } = await fresh('forged');
    const header = decodeProtectedHeader(token);
    const claims = decodeJwt(token);
    const jwk = (await api.call('GET', undefined, { path: '/.well-known/jwks.json' })).json.keys.find(
      (k: { kid: string }) => k.kid === header.kid,
    );
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: header.kid, typ: 'embed+jwt' })
      .sign(Buffer.from(JSON.stringify(jwk)));
    const hs256x = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: header.kid, typ: 'embed+jwt' })
      .sign(Buffer.from(jwk.x, 'base64url'));
    // A key of the service's own algorithm, so that only the key is wrong.
    const alg = header.alg!;
    const stranger = (await generateKeyPair(alg)).privateKey;
    const unknownKid = await new SignJWT(claims).setProtectedHeader({ alg, kid: 'someone-else', typ: 'embed+jwt' }).sign(stranger);
    const wrongKey = await new SignJWT(claims).setProtectedHeader({ alg, kid: header.kid!, typ: 'embed+jwt' }).sign(stranger);
    const cases = [
      'garbage',
      '',
      'a.b.c',
      '...',
      `${b64({ alg: 'none', typ: 'embed+jwt' })}.${b64(claims)}.`,
      `${b64({ alg: 'none', kid: header.kid, typ: 'embed+jwt' })}.${b64(claims)}.`,
      hs256,
      hs256x,
      unknownKid,
      wrongKey,
      token.split('.').slice(0, 2).join('.'),
    ];
    for (const forged of cases) assert.equal(await isActive(forged), false, forged.slice(0, 60));
  });

  it('validates its body and needs a key', async () => {
    assertError(await api.call('POST', {}, { path: '/api/embed_sessions/introspect' }), 400, 'invalid_request');
    assertError(await introspect(api, 42), 400, 'invalid_request');
    assertError(
      await api.call('POST', { token: 'x' }, { path: '/api/embed_sessions/introspect', headers: { authorization: '' } }),
      401,
      'unauthenticated',
    );
  });
});
