import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair } from 'jose';
import { build, buildForSuite } from '../helpers/build.js';
import { mintToken } from '../helpers/embed-sessions.js';
import { forgeries, startAttacker, type Attacker } from '../helpers/forged-tokens.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { CubejsHandlerError, cubeBuiltInRequest, cubeErrorAnswer, type CubeJwtOptions, type HandlerErrorClass } from './cube-gateway.js';
import { cubeFolder, type CubeFolder } from './cube-folder.js';

/**
 * docs/integrations/cube.md's environment block: Cube's built-in check (createDefaultCheckAuth with CUBEJS_JWK_URL,
 * replayed in cube-gateway.ts with Cube's own jsonwebtoken and jwk-to-pem) against a live service's key set.
 */
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jwtOptions = (url: string, query: string): CubeJwtOptions => ({
  jwkUrl: `${url}/.well-known/jwks.json${query}`,
  algorithms: ['ES256'],
  issuer: ['user-group-service'],
  audience: 'embedded-dashboards',
});

/** Cube's class, for the tests that load no cube.js. */
const HandlerError: HandlerErrorClass = CubejsHandlerError;

describe("Cube's built-in check: CUBEJS_JWK_URL=…/.well-known/jwks.json?alg=ES256, issuer, audience, CUBEJS_JWT_ALGS=ES256", () => {
  const server = buildForSuite();
  let attacker: Attacker;
  let cube: CubeFolder;
  before(async () => {
    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    attacker = await startAttacker('ES256');
    cube = await cubeFolder({ UGS_URL: server.url, UGS_API_KEY: (await server.client({ access: 'dashboard' })).key! });
  });
  after(async () => {
    await attacker?.host.close();
    cube?.remove();
  });

  it('in production, accepts a live session and refuses every forgery, a missing header and a Testing session', async () => {
    const jwt = jwtOptions(server.url, '?alg=ES256');
    const token = await mintToken(server.api, 'acme');
    const accepted = await cubeBuiltInRequest(jwt, HandlerError, bearer(token));
    assert.deepEqual([accepted.status, accepted.securityContext], [200, decodeJwt(token)]);
    const [published] = ((await (await fetch(jwt.jwkUrl)).json()) as { keys: { kid: string }[] }).keys;
    const other = { alg: 'EdDSA' as const, privateKey: (await generateKeyPair('EdDSA')).privateKey };
    for (const { what, token: forgery } of await forgeries(
      decodeJwt(token),
      { kid: published!.kid, alg: 'ES256', publicJwk: published! },
      attacker,
      other,
    )) {
      const answer = await cubeBuiltInRequest(jwt, HandlerError, bearer(forgery));
      assert.equal(answer.status, 403, what);
      assert.equal(answer.securityContext, undefined, what);
    }
    assert.deepEqual((await cubeBuiltInRequest(jwt, HandlerError, {})).body, { error: "Authorization header isn't set" });
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    await testing.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    assert.equal((await cubeBuiltInRequest(jwt, HandlerError, bearer(await mintToken(testing, 'acme')))).status, 403);
    assert.deepEqual(attacker.host.requests, []);
  });

  it('outside production (NODE_ENV not production, or CUBEJS_DEV_MODE) lets anything through with no security context, which the documented queryRewrite refuses', async () => {
    const jwt = jwtOptions(server.url, '?alg=ES256');
    const token = await mintToken(server.api, 'acme');
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    for (const headers of [bearer(forged), {}]) {
      const answer = await cubeBuiltInRequest(jwt, cube.CubejsHandlerError, headers, false);
      assert.deepEqual(answer, { status: 200, securityContext: undefined });
      const query = { measures: ['orders.count'] };
      const refused = (() => {
        try {
          cube.config.queryRewrite(query, { securityContext: answer.securityContext });
        } catch (e) {
          return cubeErrorAnswer(e, cube.CubejsHandlerError);
        }
        return assert.fail('the query was let through');
      })();
      assert.deepEqual(refused, { status: 403, error: 'No user group in the security context' });
    }
  });
});

describe("Cube's built-in check and a key set holding an Ed25519 key", () => {
  it('reads no key of the whole set (jwk-to-pem has no Ed25519) while ?alg=ES256 reads the ES256 one: a deployment moving from EdDSA', async (t) => {
    const dir = makeTempDir('ugs-cube-rotation');
    // As test/signing-keys/common-verifiers.test.ts plays it: the rotation in the past, the new key signing at the present.
    const maxAgeMs = 300_000;
    const before = await build(t, { dataDir: dir.path, kind: 'sqlite', embed: { algorithm: 'EdDSA' } });
    await before.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const key = before.api.key!;
    await before.close();
    let clock = Date.now() - maxAgeMs - 5_000;
    const server = await build(t, { dataDir: dir, kind: 'sqlite', embed: { algorithm: 'ES256' }, now: () => clock, apiKey: false });
    const api = new (before.api.constructor as new (url: string, key: string) => typeof before.api)(server.url, key);
    await server.services.signingKeys.Customer.rotate();
    clock = Date.now();
    const token = await mintToken(api, 'acme');
    assert.equal(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, 'ES256');
    const whole = await cubeBuiltInRequest(jwtOptions(server.url, ''), HandlerError, bearer(token));
    assert.deepEqual(
      [whole.status, whole.body],
      [403, { error: 'Invalid token' }],
      'every token refused while the Ed25519 key is in the set',
    );
    assert.match(String(whole.logged?.message), /Unsupported key type|OKP/i);
    const filtered = await cubeBuiltInRequest(jwtOptions(server.url, '?alg=ES256'), HandlerError, bearer(token));
    assert.deepEqual([filtered.status, filtered.securityContext?.['sub']], [200, 'acme']);
  });
});
