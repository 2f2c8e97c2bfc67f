import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair } from 'jose';
import { createCubeCheckAuth, type CubeCheckAuth } from 'user-group-service/embed';
import { buildForSuite } from '../helpers/build.js';
import { mintToken } from '../helpers/embed-sessions.js';
import { forgeries, startAttacker, type Attacker, type Forgery } from '../helpers/forged-tokens.js';
import type { ApiClient } from '../helpers/http-client.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { cubeBuiltInRequest, cubeRequest, type CubeAnswer, type CubeJwtOptions } from './cube-gateway.js';
import { cubeFolder, type CubeFolder } from './cube-folder.js';

/**
 * createCubeCheckAuth and docs/integrations/cube.md's cube.js against a live service, called as Cube's gateway calls a
 * checkAuth and answered as it answers (cube-gateway.ts replays both from Cube's source), with Cube's error class
 * resolved from a Cube folder (cube-folder.ts). Cube's built-in check, replayed with its own jsonwebtoken and
 * jwk-to-pem, is held to the same tokens.
 */
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const jwtOptions = (url: string, query = '?alg=ES256'): CubeJwtOptions => ({
  jwkUrl: `${url}/.well-known/jwks.json${query}`,
  algorithms: ['ES256'],
  issuer: ['user-group-service'],
  audience: 'embedded-dashboards',
});

/** Cube's answer says why and nothing of the token: not the token, nor any of its three parts. */
function assertQuotesNothingOf(answer: CubeAnswer, token: string, what: string): void {
  const text = JSON.stringify(answer.body);
  for (const part of [token, ...token.split('.').filter((p) => p.length > 8)])
    assert.ok(!text.includes(part), `${what}: the answer quotes the token`);
}

async function forgedTokens(url: string, token: string, attacker: Attacker): Promise<Forgery[]> {
  const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: 'ES256' }[] };
  const real = { kid: jwks.keys[0]!.kid, alg: jwks.keys[0]!.alg, publicJwk: jwks.keys[0]! };
  const other = { alg: 'EdDSA' as const, privateKey: (await generateKeyPair('EdDSA')).privateKey };
  const forged = await forgeries(decodeJwt(token), real, attacker, other);
  assert.ok(forged.some((f) => /alg none/.test(f.what)) && forged.some((f) => /HS256 keyed with the public key/.test(f.what)));
  return forged;
}

describe("Cube's checkAuth with createCubeCheckAuth (docs/integrations/cube.md)", () => {
  const server = buildForSuite();
  let dashboardKey: string;
  let cube: CubeFolder;
  let fast: CubeCheckAuth;
  let attacker: Attacker;
  before(async () => {
    dashboardKey = (await server.client({ access: 'dashboard' })).key!;
    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await server.api.getOrCreate({ user_group_id: 'acme-labs', name: 'Acme Labs', parent_user_group_id: 'acme' });
    cube = await cubeFolder({ UGS_URL: server.url, UGS_API_KEY: dashboardKey });
    // The helper as cube.js makes it, polling the feed faster than its 10 s, so that a revocation shows soon.
    fast = createCubeCheckAuth({
      serviceUrl: server.url,
      apiKey: dashboardKey,
      revocationPollMs: 50,
      CubejsHandlerError: cube.CubejsHandlerError,
    });
    attacker = await startAttacker('ES256');
  });
  after(async () => {
    await fast?.close();
    await attacker?.host.close();
    cube?.remove();
  });

  it("the documented cube.js gives Cube a writable copy of a live session's claims, whatever form the header takes", async () => {
    const token = await mintToken(server.api, 'acme');
    for (const headers of [bearer(token), { authorization: token }, { 'x-cube-authorization': `Bearer ${token}` }]) {
      const answer = await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, headers);
      assert.equal(answer.status, 200, answer.body?.error);
      assert.deepEqual(answer.securityContext, decodeJwt(token), Object.keys(headers)[0]);
    }
    // Cube and its hooks write into the context (this file is ESM, so strict: a frozen object would throw here).
    const context = (await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, bearer(token))).securityContext!;
    context['cubeCloud'] = { groups: ['viewer'] };
    (context['props'] as Record<string, unknown>)['region'] = 'changed';
    assert.deepEqual(context['cubeCloud'], { groups: ['viewer'] });
    // Each request gets its own copy: the next one sees the token's claims, not the writes.
    assert.deepEqual((await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, bearer(token))).securityContext, decodeJwt(token));
  });

  it("refuses with Cube's own 403, saying why and quoting nothing: no header, every forgery (alg none, HS256 under the public key…), a Testing session", async () => {
    const missing = await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, {});
    assert.deepEqual(missing.body, { error: 'No embed token: send it in the Authorization header' });
    assert.equal(missing.status, 403);
    const token = await mintToken(server.api, 'acme');
    for (const { what, token: forgery } of await forgedTokens(server.url, token, attacker)) {
      const answer = await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, bearer(forgery));
      assert.deepEqual([answer.status, answer.body], [403, { error: 'Invalid embed token' }], what);
      assert.equal(answer.logged?.name, 'EmbedTokenError', `${what}: Cube logs the verifier's reason`);
      assertQuotesNothingOf(answer, forgery, what);
    }
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    await testing.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const answer = await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, bearer(await mintToken(testing, 'acme')));
    assert.deepEqual([answer.status, answer.body], [403, { error: 'Invalid embed token' }]);
    assert.deepEqual(attacker.host.requests, []);
  });

  it("refuses a session ended by DELETE once the feed lists it, which Cube's built-in check never reads", async () => {
    const token = await mintToken(server.api, 'acme');
    assert.equal((await cubeRequest(fast, cube.CubejsHandlerError, bearer(token))).status, 200);
    const ended = await server.api.call('DELETE', undefined, { path: `/api/embed_sessions/${decodeJwt(token).jti}` });
    assert.equal(ended.status, 200, ended.text);
    const refused = await eventually(
      async () => {
        const answer = await cubeRequest(fast, cube.CubejsHandlerError, bearer(token));
        return answer.status === 200 ? undefined : answer;
      },
      10_000,
      'the revocation reaching the verifier',
    );
    assert.deepEqual([refused.status, refused.body], [403, { error: 'The embed session has been ended' }]);
    assertQuotesNothingOf(refused, token, 'revoked');
    const builtIn = await cubeBuiltInRequest(jwtOptions(server.url), cube.CubejsHandlerError, bearer(token));
    assert.equal(builtIn.securityContext?.['sub'], 'acme', 'the built-in check still lets it through');
  });

  it('fails closed: while the revocations cannot be read (here, a key the feed refuses) every session is a 503 saying so', async () => {
    const refusedKey = createCubeCheckAuth({
      serviceUrl: server.url,
      apiKey: 'ugs_live_notakey',
      CubejsHandlerError: cube.CubejsHandlerError,
    });
    try {
      const answer = await cubeRequest(refusedKey, cube.CubejsHandlerError, bearer(await mintToken(server.api, 'acme')));
      assert.deepEqual(answer, {
        status: 503,
        body: { error: 'Embed sessions cannot be checked for revocation right now; retry shortly' },
        logged: answer.logged,
      });
      assert.match(answer.logged!.message, /revocation/i);
    } finally {
      await refusedKey.close();
    }
  });

  it("without the class given, finds Cube's where cube.js would; where there is none, refuses all the same, and Cube answers 500", async () => {
    const token = await mintToken(server.api, 'acme');
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${'A'.repeat(86)}`;
    const home = process.cwd();
    let found: CubeCheckAuth;
    process.chdir(cube.path); // Cube runs in the folder of cube.js
    try {
      found = createCubeCheckAuth({ serviceUrl: server.url, apiKey: dashboardKey });
    } finally {
      process.chdir(home);
    }
    const fallback = createCubeCheckAuth({ serviceUrl: server.url, apiKey: dashboardKey }); // the tests' folder has no Cube
    try {
      assert.equal(fast.errorClass, 'given');
      assert.equal(found.errorClass, 'found in Cube');
      assert.deepEqual((await cubeRequest(found, cube.CubejsHandlerError, bearer(forged))).body, { error: 'Invalid embed token' });
      assert.equal((await cubeRequest(found, cube.CubejsHandlerError, bearer(forged))).status, 403);
      assert.equal(fallback.errorClass, 'fallback');
      const answer = await cubeRequest(fallback, cube.CubejsHandlerError, bearer(forged));
      assert.deepEqual([answer.status, answer.body], [500, { error: 'CubeAuthRefusal: Invalid embed token' }]);
      assert.equal((await cubeRequest(fallback, cube.CubejsHandlerError, bearer(token))).status, 200);
    } finally {
      await found.close();
      await fallback.close();
    }
    assert.equal(process.cwd(), home);
  });

  it('refuses with a 500 once closed: a check that cannot run lets nothing through', async () => {
    const closed = createCubeCheckAuth({ serviceUrl: server.url, apiKey: dashboardKey, CubejsHandlerError: cube.CubejsHandlerError });
    await closed.close();
    const answer = await cubeRequest(closed, cube.CubejsHandlerError, bearer(await mintToken(server.api, 'acme')));
    assert.deepEqual([answer.status, answer.body], [500, { error: 'The embed token could not be checked' }]);
    assert.match(String(answer.logged?.message), /closed/);
  });

  it('needs an API key: without the revocation feed it would add nothing to the built-in check', () => {
    for (const apiKey of [undefined, '']) {
      assert.throws(() => createCubeCheckAuth({ serviceUrl: server.url, apiKey } as never), { name: 'TypeError', message: /apiKey/ });
    }
    assert.throws(
      () => createCubeCheckAuth({ serviceUrl: server.url, apiKey: dashboardKey, CubejsHandlerError: {} as never }),
      /Cube's class/,
    );
  });
});

describe('an expired session', () => {
  // Minted two hours ago by the service's clock (its check against the store's clock widened to match), so its
  // exp (10 minutes later) is long past now.
  const past = buildForSuite({ now: () => Date.now() - 2 * 3600_000, embed: { clockOffsetMaxMs: 3 * 3600_000 } });
  let checkAuth: CubeCheckAuth;
  let cube: CubeFolder;
  let token: string;
  before(async () => {
    const dashboard: ApiClient = await past.client({ access: 'dashboard' });
    cube = await cubeFolder({ UGS_URL: past.url, UGS_API_KEY: dashboard.key! });
    checkAuth = createCubeCheckAuth({ serviceUrl: past.url, apiKey: dashboard.key!, CubejsHandlerError: cube.CubejsHandlerError });
    await past.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const res = await past.api.call('POST', { user_group_id: 'acme', expires_in: 600 }, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    token = res.json.embed_session.token as string;
  });
  after(async () => {
    await checkAuth?.close();
    cube?.remove();
  });

  it("is Cube's 403 saying it has expired, from the helper and from the built-in check", async () => {
    assert.ok(decodeJwt(token).exp! < Date.now() / 1000 - 3600);
    const answer = await cubeRequest(checkAuth, cube.CubejsHandlerError, bearer(token));
    assert.deepEqual([answer.status, answer.body], [403, { error: 'The embed session has expired' }]);
    assertQuotesNothingOf(answer, token, 'expired');
    const builtIn = await cubeBuiltInRequest(jwtOptions(past.url), cube.CubejsHandlerError, bearer(token));
    assert.deepEqual([builtIn.status, builtIn.body, builtIn.logged?.name], [403, { error: 'Invalid token' }, 'TokenExpiredError']);
  });
});
