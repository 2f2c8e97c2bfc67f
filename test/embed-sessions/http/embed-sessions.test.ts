import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { tokenVersionOf } from '../../../src/consequences/embed-revocation.js';
import { hashSecret } from '../../../src/secrets/secret-format.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

const mint = (api: ApiClient, body: unknown) => api.call('POST', body, { path: '/api/embed_sessions' });

describe('POST /api/embed_sessions (mint)', () => {
  const server = buildForSuite();
  let api: ApiClient;
  let group: { team_id: number; token: string };
  before(async () => {
    api = server.api;
    const created = await api.getOrCreate({
      user_group_id: 'acme',
      name: 'Acme Inc.',
      mapping: { '40': '213', '41': 7 },
      properties: { region: 'eu', tier: { level: 2 } },
    });
    group = created.json.user_group;
  });

  it('mints by user_group_id: 201, no-store, exactly the documented body', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await mint(api, { user_group_id: 'acme' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(res.json), ['success', 'embed_session']);
    assert.equal(res.json.success, 1);
    const session = res.json.embed_session;
    assert.deepEqual(Object.keys(session).sort(), ['expires_at', 'session_id', 'team_id', 'token', 'user_group_id']);
    assert.equal(session.user_group_id, 'acme');
    assert.equal(session.team_id, group.team_id);
    assert.match(session.session_id, /^es_[A-Za-z0-9_-]{48}$/);
    assert.match(session.token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const claims = decodeJwt(session.token);
    assert.equal(session.expires_at, new Date(claims.exp! * 1000).toISOString());
    assert.ok(claims.iat! >= before && claims.iat! <= Math.ceil(Date.now() / 1000), `iat ${claims.iat} is now`);
    assert.equal(claims.exp, claims.iat! + 600, 'expires_in defaults to 600 s');
  });

  it('mints by user_group_token the same group', async () => {
    const res = await mint(api, { user_group_token: group.token, expires_in: 120 });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.embed_session.user_group_id, 'acme');
    assert.equal(res.json.embed_session.team_id, group.team_id);
    const claims = decodeJwt(res.json.embed_session.token);
    assert.equal(claims.exp, claims.iat! + 120);
  });

  it('signs a compact JWS with header alg ES256 (the default), a published kid and typ embed+jwt, and exactly the documented claims', async () => {
    const res = await mint(api, { user_group_id: 'acme', expires_in: 3600 });
    const { token, session_id } = res.json.embed_session;
    const header = decodeProtectedHeader(token);
    assert.deepEqual(Object.keys(header).sort(), ['alg', 'kid', 'typ']);
    assert.equal(header.alg, 'ES256');
    assert.equal(header.typ, 'embed+jwt');
    const jwks = await api.call('GET', undefined, { path: '/.well-known/jwks.json' });
    assert.ok(
      jwks.json.keys.some((k: { kid: string }) => k.kid === header.kid),
      'the kid is published',
    );

    const claims = decodeJwt(token);
    assert.deepEqual(Object.keys(claims).sort(), [
      'anc',
      'aud',
      'env',
      'exp',
      'iat',
      'iss',
      'jti',
      'map',
      'name',
      'props',
      'sub',
      'tid',
      'tv',
    ]);
    const { iat, exp, tv, ...rest } = claims;
    assert.deepEqual(rest, {
      iss: 'user-group-service',
      aud: 'embedded-dashboards',
      sub: 'acme',
      env: 'Customer',
      tid: group.team_id,
      name: 'Acme Inc.',
      map: { '40': '213', '41': 7 },
      props: { region: 'eu', tier: { level: 2 } },
      jti: session_id,
      anc: [],
    });
    assert.equal(exp, iat! + 3600);
    assert.equal(tv, tokenVersionOf(hashSecret(group.token)), "tv names the group's current token");
    assert.match(String(tv), /^[A-Za-z0-9_-]{16}$/);
  });

  it('carries dsh and org only when given, and map and props as {} when the group has none', async () => {
    await api.getOrCreate({ user_group_id: 'bare', name: 'Bare' });
    const bare = decodeJwt((await mint(api, { user_group_id: 'bare' })).json.embed_session.token);
    assert.deepEqual([bare.map, bare.props, 'dsh' in bare, 'org' in bare], [{}, {}, false, false]);
    const origins = ['https://app.example.com', 'http://localhost:3000'];
    const res = await mint(api, { user_group_id: 'bare', dashboard: 'sales-overview', origins });
    assert.equal(res.status, 201, res.text);
    const full = decodeJwt(res.json.embed_session.token);
    assert.equal(full.dsh, 'sales-overview');
    assert.deepEqual(full.org, origins);
    assert.deepEqual(
      decodeJwt((await mint(api, { user_group_id: 'bare', origins: [] })).json.embed_session.token).org,
      [],
      'an empty list is kept as given',
    );
  });

  it('changes tv when the group token rotates, and gives every session its own jti', async () => {
    await api.getOrCreate({ user_group_id: 'rotating', name: 'R' });
    const first = (await api.getOrCreate({ user_group_id: 'rotating' })).json.user_group.token;
    const a = decodeJwt((await mint(api, { user_group_id: 'rotating' })).json.embed_session.token);
    const b = decodeJwt((await mint(api, { user_group_id: 'rotating' })).json.embed_session.token);
    assert.notEqual(a.jti, b.jti);
    assert.equal(a.tv, b.tv);
    assert.equal((await api.rotate(first)).status, 200);
    const c = decodeJwt((await mint(api, { user_group_id: 'rotating' })).json.embed_session.token);
    assert.notEqual(c.tv, a.tv);
    assertError(await mint(api, { user_group_token: first }), 404, 'not_found');
  });

  it('answers 400 for a body that is not exactly one group, or an expires_in, dashboard or origins out of bounds', async () => {
    const cases: [string, unknown][] = [
      ['neither id nor token', {}],
      ['both id and token', { user_group_id: 'acme', user_group_token: group.token }],
      ['expires_in 59', { user_group_id: 'acme', expires_in: 59 }],
      ['expires_in 86401', { user_group_id: 'acme', expires_in: 86_401 }],
      ['expires_in 60.5', { user_group_id: 'acme', expires_in: 60.5 }],
      ['expires_in as text', { user_group_id: 'acme', expires_in: '600' }],
      ['empty dashboard', { user_group_id: 'acme', dashboard: '' }],
      ['256-char dashboard', { user_group_id: 'acme', dashboard: 'd'.repeat(256) }],
      ['http origin', { user_group_id: 'acme', origins: ['http://app.example.com'] }],
      ['origin with a path', { user_group_id: 'acme', origins: ['https://app.example.com/x'] }],
      ['origin with a trailing slash', { user_group_id: 'acme', origins: ['https://app.example.com/'] }],
      ['origin not a URL', { user_group_id: 'acme', origins: ['app.example.com'] }],
      ['origins not a list', { user_group_id: 'acme', origins: 'https://app.example.com' }],
      ['11 origins', { user_group_id: 'acme', origins: Array.from({ length: 11 }, (_, i) => `https://a${i}.example.com`) }],
      ['not JSON object', [1]],
    ];
    for (const [what, body] of cases) {
      const res = await mint(api, body);
      assert.equal(res.status, 400, `${what}: ${res.status} ${res.text}`);
      assertError(res, 400, 'invalid_request');
    }
    assert.equal((await mint(api, { user_group_id: 'acme', expires_in: 60 })).status, 201, 'the bounds themselves are fine');
    assert.equal((await mint(api, { user_group_id: 'acme', expires_in: 86_400, dashboard: 'd'.repeat(255) })).status, 201);
    assert.equal(
      (await mint(api, { user_group_id: 'acme', origins: Array.from({ length: 10 }, (_, i) => `https://a${i}.example.com`) })).status,
      201,
    );
  });

  it('refuses origins a CSP source list would read as a wildcard or more than one origin, naming "origins"; keeps scheme://host[:port] ones', async () => {
    for (const origin of [
      'https://*',
      'https://*.com',
      'https://a.example;sandbox',
      "https://'self'",
      'https://"a".example',
      'https://{a}.example',
      'https://a_b.example',
      'http://localhost:0',
      'https://a.example:0',
    ]) {
      const res = await mint(api, { user_group_id: 'acme', origins: ['https://ok.example', origin] });
      assert.match(assertError(res, 400, 'invalid_request'), /^"origins" entry /, origin);
      assert.ok(JSON.parse(res.text).error.message.includes(JSON.stringify(origin)), `${origin}: the message names the entry`);
    }
    const kept = [
      'https://app.example.com:65535',
      'http://localhost:1',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
      'https://192.0.2.10',
      'https://[2001:db8::1]:8443',
    ];
    const res = await mint(api, { user_group_id: 'acme', origins: kept });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(decodeJwt(res.json.embed_session.token).org, kept);
  });

  it("answers 404 for a group unknown in the key's environment, by id or token", async () => {
    assertError(await mint(api, { user_group_id: 'nobody' }), 404, 'not_found');
    assertError(await mint(api, { user_group_token: 'ugt_not-a-token' }), 404, 'not_found');
    const testing = await server.client({ environment: 'Testing' });
    assertError(await mint(testing, { user_group_id: 'acme' }), 404, 'not_found');
    assertError(await mint(testing, { user_group_token: group.token }), 404, 'not_found');
  });

  it('ends a session by id (200, then inactive, once in the feed), 404 for an id this environment never minted, 200 writing nothing for one whose group was deleted', async () => {
    const end = (client: ApiClient, id: string) => client.call('DELETE', undefined, { path: `/api/embed_sessions/${id}` });
    const introspect = async (token: string) => (await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json;
    const feed = async () => (await api.call('GET', undefined, { path: '/api/embed_sessions/revocations?limit=1000' })).json.revocations;
    const live = (await mint(api, { user_group_id: 'acme' })).json.embed_session;
    const ended = (await mint(api, { user_group_id: 'acme' })).json.embed_session;
    const before = (await feed()).length;
    assert.equal((await end(api, ended.session_id)).status, 200);
    assert.equal((await end(api, ended.session_id)).status, 200, 'again: not an error');
    assert.deepEqual(await introspect(ended.token), { active: false });
    assert.equal((await introspect(live.token)).active, true, 'only that session ended');
    assert.deepEqual(
      (await feed()).slice(before).map((r: { session_id: string }) => r.session_id),
      [ended.session_id],
    );

    const altered = `${live.session_id.slice(0, -1)}${live.session_id.endsWith('A') ? 'B' : 'A'}`;
    const testing = await server.client({ environment: 'Testing' });
    for (const [client, id] of [
      [api, altered],
      [api, `es_${'A'.repeat(48)}`],
      [testing, live.session_id],
    ] as const) {
      assertError(await end(client, id), 404, 'not_found');
    }
    assert.equal((await introspect(live.token)).active, true, 'a refused id ends nothing');

    await api.getOrCreate({ user_group_id: 'short-lived', name: 'Short-lived' });
    const orphan = (await mint(api, { user_group_id: 'short-lived' })).json.embed_session;
    assert.equal((await api.call('DELETE', { user_group_id: 'short-lived' })).status, 200);
    const afterDelete = (await feed()).length;
    assert.equal((await end(api, orphan.session_id)).status, 200, 'its deletion ended it');
    assert.equal((await feed()).length, afterDelete, 'nothing more to write');
  });

  it('is refused to read-only keys (403) and to requests without a key (401)', async () => {
    const reader = await server.client({ access: 'read-only' });
    assertError(await mint(reader, { user_group_id: 'acme' }), 403, 'forbidden');
    const res = await api.call('POST', { user_group_id: 'acme' }, { path: '/api/embed_sessions', headers: { authorization: '' } });
    assertError(res, 401, 'unauthenticated');
  });

  it('lets an embed key mint, and refuses it (403) every user group operation', async () => {
    const embed = await server.client({ access: 'embed' });
    const minted = await mint(embed, { user_group_id: 'acme' });
    assert.equal(minted.status, 201, minted.text);
    assert.equal((await mint(embed, { user_group_token: group.token })).status, 201);
    const refusals = [
      await embed.getOrCreate({ user_group_id: 'acme' }),
      await embed.getOrCreate({ user_group_id: 'created-by-embed', name: 'X' }),
      await embed.call('HEAD', undefined, { path: '/api/user?user_group_id=acme' }),
      await embed.call('GET', undefined, { path: '/api/user_groups' }),
      await embed.call('GET', undefined, { path: '/api/user_groups/acme' }),
      await embed.update({ user_group_id: 'acme', name: 'Hijacked' }),
      await embed.rotate(group.token),
      await embed.call('DELETE', { user_group_id: 'acme' }),
    ];
    assert.deepEqual(
      refusals.map((r) => r.status),
      [403, 403, 403, 403, 403, 403, 403, 403],
    );
    for (const res of refusals.filter((r) => r.text !== '')) assertError(res, 403, 'forbidden');
    assert.equal(
      (await api.getOrCreate({ user_group_id: 'created-by-embed', name: 'X' })).json.new_user_group,
      true,
      'the embed key created nothing',
    );
    const acme = (await api.call('GET', undefined, { path: '/api/user_groups/acme' })).json.user_group;
    assert.equal(acme.name, 'Acme Inc.');
  });
});
