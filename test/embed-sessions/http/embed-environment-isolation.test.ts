import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { bindProperties } from 'user-group-service/embed';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite, type TestApp } from '../../helpers/build.js';

type Environment = 'Customer' | 'Testing';

/** Each environment's documented values (docs/embedding.md), the service's defaults. */
const DOCUMENTED: Record<Environment, { jwks: string; issuer: string; audience: string }> = {
  Customer: { jwks: '/.well-known/jwks.json', issuer: 'user-group-service', audience: 'embedded-dashboards' },
  Testing: { jwks: '/.well-known/jwks-testing.json', issuer: 'user-group-service-testing', audience: 'embedded-dashboards-testing' },
};
const OTHER: Record<Environment, Environment> = { Customer: 'Testing', Testing: 'Customer' };

/**
 * A dashboard layer in any language that follows docs/embedding.md for one
 * environment: the signature against that environment's JWKS URL, `alg`,
 * `typ`, `iss`, `aud`, `exp`. It never reads `env`.
 */
function documentedVerifier(server: TestApp, environment: Environment) {
  const jwks = createRemoteJWKSet(new URL(DOCUMENTED[environment].jwks, server.url));
  return async (token: string): Promise<JWTPayload> =>
    (
      await jwtVerify(token, jwks, {
        algorithms: ['EdDSA', 'ES256', 'RS256'],
        typ: 'embed+jwt',
        issuer: DOCUMENTED[environment].issuer,
        audience: DOCUMENTED[environment].audience,
        clockTolerance: 60,
        requiredClaims: ['exp'],
      })
    ).payload;
}

/** The sloppiest verifier still worth the name: the signature against the JWKS, nothing else checked. */
function signatureOnlyVerifier(server: TestApp, environment: Environment) {
  const jwks = createRemoteJWKSet(new URL(DOCUMENTED[environment].jwks, server.url));
  return async (token: string) => (await jwtVerify(token, jwks, { algorithms: ['EdDSA', 'ES256', 'RS256'] })).payload;
}

/**
 * Issue 26, item 3: a Testing key must not mint what a production verifier
 * accepts. Both environments hold a group "acme" (each with its own region);
 * every kind of token each environment mints is checked by the other
 * environment's documented verifier, against the real service.
 */
describe('embed tokens cannot cross environments, for a verifier that never reads env', () => {
  const server = buildForSuite({ apiKey: false });
  const api = {} as Record<Environment, ApiClient>;
  const tokens = {} as Record<Environment, string[]>;
  before(async () => {
    for (const environment of ['Customer', 'Testing'] as const) {
      api[environment] = await server.client({ environment });
      const embedKey = await server.client({ environment, access: 'embed' });
      const region = environment === 'Customer' ? 'eu' : 'us';
      assert.equal((await api[environment].getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region } })).status, 200);
      assert.equal(
        (
          await api[environment].getOrCreate({
            user_group_id: 'acme-store',
            name: 'Store',
            parent_user_group_id: 'acme',
            properties: { region },
          })
        ).status,
        200,
      );
      const mint = async (client: ApiClient, body: object) => {
        const res = await client.call('POST', body, { path: '/api/embed_sessions' });
        assert.equal(res.status, 201, res.text);
        return res.json.embed_session.token as string;
      };
      tokens[environment] = [
        await mint(api[environment], { user_group_id: 'acme' }),
        await mint(api[environment], {
          user_group_id: 'acme',
          include_descendants: true,
          dashboard: 'sales',
          origins: ['https://app.example.com'],
          expires_in: 86_400,
        }),
        await mint(api[environment], { user_group_id: 'acme-store', expires_in: 60 }),
        await mint(embedKey, { user_group_id: 'acme' }),
      ];
    }
  });

  for (const environment of ['Customer', 'Testing'] as const) {
    const other = OTHER[environment];

    it(`${environment}: the documented verifier accepts every ${environment} token and refuses every ${other} one at the signature (its kid is not in ${DOCUMENTED[environment].jwks})`, async () => {
      const verify = documentedVerifier(server, environment);
      for (const token of tokens[environment]) {
        const payload = await verify(token);
        assert.equal(payload['env'], environment, 'the claim agrees, though the verifier never read it');
      }
      const published = (await api[environment].call('GET', undefined, { path: DOCUMENTED[environment].jwks })).json.keys.map(
        (k: { kid: string }) => k.kid,
      );
      for (const token of tokens[other]) {
        assert.ok(!published.includes(decodeProtectedHeader(token).kid), `the ${other} kid is not published in ${environment}'s JWKS`);
        await assert.rejects(verify(token), errors.JWKSNoMatchingKey);
        await assert.rejects(
          signatureOnlyVerifier(server, environment)(token),
          errors.JWKSNoMatchingKey,
          'refused even by a verifier that checks nothing but the signature',
        );
      }
    });

    it(`${environment}: a dashboard following the docs never reaches bindProperties with a ${other} token`, async () => {
      const verify = documentedVerifier(server, environment);
      const bound: unknown[] = [];
      const dashboard = async (token: string) => {
        const claims = await verify(token);
        bound.push(
          bindProperties('SELECT * FROM orders WHERE region = {{ region }}', claims as Parameters<typeof bindProperties>[1], 'sqlite')
            .values,
        );
      };
      for (const token of tokens[other]) await assert.rejects(dashboard(token));
      assert.deepEqual(bound, []);
      await dashboard(tokens[environment][0]!);
      assert.deepEqual(bound, [[environment === 'Customer' ? 'eu' : 'us']], `control: a ${environment} token binds its own group's region`);
    });

    it(`${environment}: introspection with a ${environment} key answers its own tokens active and the other environment's inactive`, async () => {
      const introspect = async (token: string) =>
        (await api[environment].call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json;
      for (const token of tokens[environment]) assert.equal((await introspect(token)).active, true);
      for (const token of tokens[other]) assert.deepEqual(await introspect(token), { active: false });
    });
  }

  it("publishes each environment's keys at its own URL, with the same caching, and no key at both", async () => {
    const [customer, testing] = await Promise.all(
      (['Customer', 'Testing'] as const).map((environment) =>
        api.Customer.call('GET', undefined, { path: DOCUMENTED[environment].jwks, headers: { authorization: '' } }),
      ),
    );
    for (const res of [customer!, testing!]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['cache-control'], 'public, max-age=300');
      assert.equal(res.json.keys.length, 1);
    }
    assert.notEqual(customer!.json.keys[0].kid, testing!.json.keys[0].kid);
    for (const environment of ['Customer', 'Testing'] as const) {
      assert.deepEqual(
        [...new Set(tokens[environment].map((t) => decodeProtectedHeader(t).kid))],
        [(environment === 'Customer' ? customer! : testing!).json.keys[0].kid],
        `every ${environment} token is signed by the key of ${DOCUMENTED[environment].jwks}`,
      );
    }
  });
});
