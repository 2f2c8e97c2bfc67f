import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import type { SigningAlgorithm } from '../../../src/signing-keys/signing-key.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite, build, type TestApp } from '../../helpers/build.js';

const mint = (api: ApiClient, body: unknown) => api.call('POST', body, { path: '/api/embed_sessions' });

/** What a dashboard layer in any language does: fetch the JWKS by URL and verify with an independent JOSE library. */
async function verifyIndependently(
  server: TestApp,
  token: string,
  options: { algorithm: SigningAlgorithm; issuer?: string; audience?: string; jwks?: string },
) {
  const jwks = createRemoteJWKSet(new URL(options.jwks ?? '/.well-known/jwks.json', server.url));
  return jwtVerify(token, jwks, {
    algorithms: [options.algorithm],
    issuer: options.issuer ?? 'user-group-service',
    audience: options.audience ?? 'embedded-dashboards',
    typ: 'embed+jwt',
    requiredClaims: ['sub', 'jti', 'exp', 'iat', 'tv'],
  });
}

describe('GET /.well-known/jwks.json and independent verification with jose', () => {
  const server = buildForSuite();
  let api: ApiClient;
  before(async () => {
    api = server.api;
    await api.getOrCreate({ user_group_id: 'jwks-g', name: 'JWKS', properties: { region: 'eu' } });
  });

  it('publishes the P-256 public key (ES256, the default) without a key, cacheable for the documented 300 s, with no private part', async () => {
    const res = await api.call('GET', undefined, { path: '/.well-known/jwks.json', headers: { authorization: '' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'public, max-age=300');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json.keys.length, 1);
    const [jwk] = res.json.keys;
    assert.deepEqual(Object.keys(jwk).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.deepEqual([jwk.kty, jwk.crv, jwk.alg, jwk.use], ['EC', 'P-256', 'ES256', 'sig']);
    assert.equal(jwk.kid, server.services.signingKeys.Customer.active().kid);
  });

  it('mints tokens jose verifies against the published JWKS, with the claims the service signed', async () => {
    const minted = (await mint(api, { user_group_id: 'jwks-g', dashboard: 'd1' })).json.embed_session;
    const { payload, protectedHeader } = await verifyIndependently(server, minted.token, { algorithm: 'ES256' });
    assert.deepEqual(protectedHeader, decodeProtectedHeader(minted.token));
    assert.deepEqual([payload.sub, payload.jti, payload['props'], payload['dsh']], ['jwks-g', minted.session_id, { region: 'eu' }, 'd1']);
    await assert.rejects(verifyIndependently(server, minted.token, { algorithm: 'ES256', audience: 'someone-else' }), /aud/);
  });

  it("publishes ES256 and RS256 keys under UGS_EMBED_ALGORITHM, with each environment's issuer and audience settings, and jose verifies their tokens", async (t) => {
    for (const [algorithm, shape] of [
      ['ES256', { kty: 'EC', crv: 'P-256', members: ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'] }],
      ['RS256', { kty: 'RSA', crv: undefined, members: ['alg', 'e', 'kid', 'kty', 'n', 'use'] }],
    ] as const) {
      const other = await build(t, {
        embed: {
          algorithm,
          issuer: 'https://ugs.example.com',
          audience: 'acme-dashboards',
          testingIssuer: 'https://ugs.example.com/testing',
          testingAudience: 'acme-dashboards-testing',
          jwksMaxAgeSeconds: 60,
        },
      });
      try {
        const otherApi = other.api;
        await otherApi.getOrCreate({ user_group_id: 'alg-g', name: algorithm });
        const jwks = await otherApi.call('GET', undefined, { path: '/.well-known/jwks.json' });
        assert.equal(jwks.headers['cache-control'], 'public, max-age=60');
        const [jwk] = jwks.json.keys;
        assert.deepEqual(Object.keys(jwk).sort(), shape.members, algorithm);
        assert.deepEqual([jwk.kty, jwk.crv, jwk.alg, jwk.use], [shape.kty, shape.crv, algorithm, 'sig']);
        const minted = (await mint(otherApi, { user_group_id: 'alg-g' })).json.embed_session;
        assert.equal(decodeProtectedHeader(minted.token).alg, algorithm);
        const { payload } = await verifyIndependently(other, minted.token, {
          algorithm,
          issuer: 'https://ugs.example.com',
          audience: 'acme-dashboards',
        });
        assert.deepEqual([payload.iss, payload.aud, payload.sub], ['https://ugs.example.com', 'acme-dashboards', 'alg-g']);
        const introspected = await otherApi.call('POST', { token: minted.token }, { path: '/api/embed_sessions/introspect' });
        assert.equal(introspected.json.active, true, `${algorithm}: ${introspected.text}`);

        const testingApi = await other.client({ environment: 'Testing' });
        await testingApi.getOrCreate({ user_group_id: 'alg-g', name: `${algorithm} testing` });
        const testingJwks = await testingApi.call('GET', undefined, { path: '/.well-known/jwks-testing.json' });
        assert.equal(testingJwks.headers['cache-control'], 'public, max-age=60');
        assert.deepEqual(
          testingJwks.json.keys.map((k: { alg: string }) => k.alg),
          [algorithm],
        );
        const testingToken = (await mint(testingApi, { user_group_id: 'alg-g' })).json.embed_session.token;
        const testing = await verifyIndependently(other, testingToken, {
          algorithm,
          issuer: 'https://ugs.example.com/testing',
          audience: 'acme-dashboards-testing',
          jwks: '/.well-known/jwks-testing.json',
        });
        assert.deepEqual(
          [testing.payload.iss, testing.payload.aud, testing.payload['env']],
          ['https://ugs.example.com/testing', 'acme-dashboards-testing', 'Testing'],
        );
        assert.equal(
          (await testingApi.call('POST', { token: testingToken }, { path: '/api/embed_sessions/introspect' })).json.active,
          true,
        );
      } finally {
        await other.close();
      }
    }
  });

  it('mints, and introspects, a token for a group at every size limit; its length bounds what the docs state', async (t) => {
    const emoji = (i: number) => String.fromCodePoint(0x1f600 + (i % 64));
    // Per limit, the value whose JSON is longest: 255 four-byte characters where printable text is required, escaped control characters
    // elsewhere.
    const wide = (n: number, first = 0) => Array.from({ length: n }, (_, i) => emoji(first + i)).join('');
    const sizes: Record<string, number> = {};
    const worst = {
      user_group_id: wide(255),
      name: wide(255, 1),
      mapping: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [emoji(i) + emoji(i >> 6) + wide(253), '\u0001'.repeat(255)])),
      properties: { p: '\u0001'.repeat((65_536 - '{"p":""}'.length) / 6) },
    };
    const worstSession = {
      dashboard: '\u0001'.repeat(255),
      // The longest origins accepted: four labels making a 253-character host name, and a five-digit port.
      origins: Array.from(
        { length: 10 },
        (_, i) => `https://${String(i).padStart(63, 'h')}.${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.com:65535`,
      ),
    };
    for (const [label, group, body] of [
      [
        'ASCII at the limits',
        {
          user_group_id: 'i'.repeat(255),
          name: 'n'.repeat(255),
          mapping: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${i}`.padStart(255, 'k'), 'v'.repeat(255)])),
          properties: { p: 'x'.repeat(65_536 - '{"p":""}'.length) },
        },
        { dashboard: 'd'.repeat(255), origins: Array.from({ length: 10 }, (_, i) => `https://${String(i).padStart(63, 'h')}.example.com`) },
      ],
      ['worst case (four-byte characters, escapes)', worst, worstSession],
      [
        // The attributes are in props and vat, and the group's properties then also in gprops.
        "worst case, with a viewer's attributes at their limit",
        worst,
        {
          ...worstSession,
          viewer: { id: 'v'.repeat(255), attributes: { q: '\u0001'.repeat((65_536 - '{"q":""}'.length) / 6) } },
        },
      ],
    ] as const) {
      const created = await api.getOrCreate(group);
      assert.equal(created.status, 200, `${label}: ${created.text.slice(0, 300)}`);
      const res = await mint(api, { user_group_id: group.user_group_id, expires_in: 86_400, ...body });
      assert.equal(res.status, 201, `${label}: ${res.text.slice(0, 300)}`);
      const { token } = res.json.embed_session;
      sizes[label] = token.length;
      await verifyIndependently(server, token, { algorithm: 'ES256' });
      const introspected = await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' });
      assert.equal(introspected.status, 200, `${label}, a ${token.length}-character token: ${introspected.text.slice(0, 300)}`);
      assert.equal(introspected.json.active, true, label);
    }
    t.diagnostic(`embed token lengths at the limits: ${JSON.stringify(sizes)}`);
  });
});
