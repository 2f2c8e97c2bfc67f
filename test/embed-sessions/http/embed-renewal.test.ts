import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

interface Session {
  token: string;
  session_id: string;
  expires_at: string;
  user_group_id: string;
  team_id: number;
}

describe('POST /api/embed_sessions/renew', () => {
  const server = buildForSuite();
  let api: ApiClient;
  const mint = async (body: Record<string, unknown>, client = api): Promise<Session> => {
    const res = await client.call('POST', body, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    return res.json.embed_session as Session;
  };
  const renew = (body: unknown, client = api) => client.call('POST', body, { path: '/api/embed_sessions/renew' });
  const renewed = async (token: string, extra: Record<string, unknown> = {}): Promise<Session> => {
    const res = await renew({ token, ...extra });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.json.embed_session), ['token', 'session_id', 'expires_at', 'user_group_id', 'team_id']);
    return res.json.embed_session as Session;
  };
  const introspect = async (token: string) => (await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json;

  before(async () => {
    api = server.api;
    await api.getOrCreate({ user_group_id: 'r-acme', name: 'Acme', properties: { region: 'eu', tier: 'gold' } });
  });

  it("keeps the session id, takes the group's claims as they are now, carries the viewer, dashboard and origins over", async () => {
    const first = await mint({
      user_group_id: 'r-acme',
      expires_in: 120,
      dashboard: 'sales',
      origins: ['https://app.example.com'],
      viewer: { id: 'ana', attributes: { sales_rep: 'ana', tier: null } },
    });
    const before = decodeJwt(first.token);
    assert.deepEqual(before['vat'], { sales_rep: 'ana', tier: null });
    assert.equal(
      (await api.update({ user_group_id: 'r-acme', name: 'Acme Corp', properties: { region: 'us', tier: 'gold' } })).status,
      200,
    );

    const next = await renewed(first.token, { expires_in: 300 });
    assert.equal(next.session_id, first.session_id);
    const claims = decodeJwt(next.token);
    assert.equal(claims.jti, first.session_id);
    assert.equal(claims['name'], 'Acme Corp');
    assert.deepEqual(
      claims['props'],
      { region: 'us', sales_rep: 'ana' },
      'the property change reaches the renewal; the viewer still overlays',
    );
    assert.deepEqual(claims['gprops'], { region: 'us', tier: 'gold' }, "the group's own properties as they are now, without the viewer");
    assert.equal(claims['vid'], 'ana');
    assert.deepEqual(claims['vat'], before['vat']);
    assert.equal(claims['dsh'], 'sales');
    assert.deepEqual(claims['org'], ['https://app.example.com']);
    assert.ok(claims.exp! - claims.iat! === 300 && claims.iat! >= before.iat!);
    assert.equal(next.expires_at, new Date(claims.exp! * 1000).toISOString());
    assert.equal((await introspect(next.token)).active, true);
  });

  it('caps the new expiry by the maximum lifetime, and refuses one shorter than expires_in or longer than 7 days', async () => {
    const first = await mint({ user_group_id: 'r-acme', expires_in: 60, max_lifetime: 90 });
    const claims = decodeJwt((await renewed(first.token, { expires_in: 3600 })).token);
    assert.ok(claims.exp! <= decodeJwt(first.token).iat! + 90, `exp ${claims.exp} is past the session's end`);
    for (const body of [
      { user_group_id: 'r-acme', expires_in: 600, max_lifetime: 599 },
      { user_group_id: 'r-acme', max_lifetime: 7 * 86_400 + 1 },
      { user_group_id: 'r-acme', max_lifetime: 'long' },
    ]) {
      assertError(await api.call('POST', body, { path: '/api/embed_sessions' }), 400, 'invalid_request');
    }
  });

  it('renews an earlier token of a session still valid (two tabs); ending the session ends every token of it', async () => {
    const first = await mint({ user_group_id: 'r-acme' });
    const second = await renewed(first.token);
    const third = await renewed(first.token);
    assert.equal(third.session_id, first.session_id);
    assert.equal((await api.call('DELETE', undefined, { path: `/api/embed_sessions/${first.session_id}` })).status, 200);
    for (const token of [first.token, second.token, third.token]) assert.deepEqual(await introspect(token), { active: false });
    const refused = assertError(await renew({ token: second.token }), 409, 'conflict');
    assert.match(refused, /ended.*DELETE \/api\/embed_sessions/);
  });

  it('answers 409 saying why for a session ended by its viewer, its token rotation or its group deletion', async () => {
    await api.getOrCreate({ user_group_id: 'r-rotated', name: 'Rotated' });
    await api.getOrCreate({ user_group_id: 'r-deleted', name: 'Deleted' });
    const byViewer = await mint({ user_group_id: 'r-acme', viewer: { id: 'leaver' } });
    const rotated = await mint({ user_group_id: 'r-rotated' });
    const deleted = await mint({ user_group_id: 'r-deleted' });
    assert.equal((await api.call('DELETE', undefined, { path: '/api/viewers/leaver/sessions' })).status, 200);
    const current = (await api.getOrCreate({ user_group_id: 'r-rotated' })).json.user_group.token;
    assert.equal((await api.rotate(current)).status, 200);
    assert.equal((await api.call('DELETE', { user_group_id: 'r-deleted' })).status, 200);
    assert.match(assertError(await renew({ token: byViewer.token }), 409, 'conflict'), /viewer/);
    assert.match(assertError(await renew({ token: rotated.token }), 409, 'conflict'), /rotated/);
    assert.match(assertError(await renew({ token: deleted.token }), 409, 'conflict'), /deleted/);
    await api.getOrCreate({ user_group_id: 'r-deleted', name: 'Deleted, then created again' });
    assert.match(
      assertError(await renew({ token: deleted.token }), 409, 'conflict'),
      /deleted/,
      'a new group of the same id is not the same group',
    );
  });

  it("answers 400 for garbage or the other environment's token, 403 to read-only keys, and lets embed keys renew", async () => {
    const session = await mint({ user_group_id: 'r-acme' });
    for (const token of ['garbage', `${session.token.slice(0, -4)}AAAA`, '']) {
      assertError(await renew({ token }), 400, 'invalid_request');
    }
    const testing = await server.client({ environment: 'Testing' });
    assertError(await renew({ token: session.token }, testing), 400, 'invalid_request');
    assertError(await renew({ token: session.token }, await server.client({ access: 'read-only' })), 403, 'forbidden');
    const embed = await server.client({ access: 'embed' });
    assert.equal((await renew({ token: session.token }, embed)).status, 201);
    assertError(await renew({ token: session.token, expires_in: 30 }), 400, 'invalid_request');
  });
});
