import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt, generateKeyPair, type JWTPayload } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import jwkToPem from 'jwk-to-pem';
import { createCubeCheckAuth, type CubeCheckAuth } from 'user-group-service/embed';
import { buildForSuite } from '../helpers/build.js';
import { mintToken } from '../helpers/embed-sessions.js';
import { forgeries, startAttacker, type Attacker } from '../helpers/forged-tokens.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * docs/integrations/cube.md against a live service. Cube's gateway does not install here (its dependencies download
 * Cube Store from GitHub at install), so its two pieces the page relies on are replayed from its source
 * (cube-js/cube, packages/cubejs-api-gateway/src): gateway.ts's checkAuthWrapper and wrapCheckAuth (the header
 * without its scheme goes to checkAuth; a CubejsHandlerError answers with its status, any other error with a 500),
 * and jwk.ts with createDefaultCheckAuth (CUBEJS_JWK_URL: every key of the set through jwk-to-pem, then
 * jsonwebtoken.verify), with Cube's own libraries.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Cube's class, with its constructor (CubejsHandlerError.ts); the stand-in module below exports this text. */
const HANDLER_ERROR_SOURCE = `class CubejsHandlerError extends Error {
  constructor(status, type, message) { super(message || type); this.status = status; this.type = type; }
}
module.exports = { CubejsHandlerError };
`;
type HandlerError = Error & { status: number; type: string };
type HandlerErrorClass = new (status: number, type: string, message: string) => HandlerError;
type CheckAuth = (req: { securityContext?: unknown }, auth?: string) => Promise<unknown>;

interface CubeAnswer {
  status: number;
  error?: string;
  securityContext?: Record<string, unknown>;
}

/** gateway.ts's checkAuthWrapper around wrapCheckAuth, for one request's Authorization header. */
async function cubeRequest(checkAuth: CheckAuth, HandlerError: HandlerErrorClass, header?: string): Promise<CubeAnswer> {
  const parts = header?.split(' ', 2);
  const token = parts === undefined ? undefined : parts.length === 1 ? parts[0] : parts[1];
  const req: { securityContext?: Record<string, unknown> } = {};
  try {
    const result = (await checkAuth(req, token)) as { security_context?: Record<string, unknown> } | undefined;
    if (result?.security_context) req.securityContext = result.security_context;
    return { status: 200, securityContext: req.securityContext! };
  } catch (error) {
    if (error instanceof HandlerError) return { status: error.status, error: error.message };
    return { status: 500, error: String(error) };
  }
}

/** jwk.ts's fetcher and createDefaultCheckAuth's verification, with CUBEJS_JWK_URL, issuer, audience and algorithms. */
async function cubeBuiltInCheck(jwkUrl: string, token: string): Promise<JWTPayload> {
  const json = (await (await fetch(jwkUrl)).json()) as { keys: (jwkToPem.JWK & { kid: string })[] };
  const pems = new Map<string, string>();
  for (const jwk of json.keys) pems.set(jwk.kid, jwkToPem(jwk));
  const decoded = jsonwebtoken.decode(token, { complete: true });
  if (!decoded?.header.kid) throw new Error('Unable to decode JWT key');
  const pem = pems.get(decoded.header.kid);
  if (!pem) throw new Error(`Unable to verify, JWK with kid: "${decoded.header.kid}" not found`);
  return jsonwebtoken.verify(token, pem, {
    algorithms: ['ES256', 'RS256'],
    issuer: 'user-group-service',
    audience: 'embedded-dashboards',
  }) as JWTPayload;
}

describe("Cube's checkAuth with createCubeCheckAuth (docs/integrations/cube.md)", () => {
  const server = buildForSuite();
  let HandlerError: HandlerErrorClass;
  let documented: { checkAuth: CheckAuth; queryRewrite: (query: object, context: { securityContext: unknown }) => object };
  let checkAuth: CubeCheckAuth;
  let dashboardKey: string;
  let attacker: Attacker;
  let removeConf = () => {};
  before(async () => {
    ({ key: dashboardKey } = await server.services.apiKeys.create({ environment: 'Customer', access: 'dashboard' }));
    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await server.api.getOrCreate({ user_group_id: 'acme-labs', name: 'Acme Labs', parent_user_group_id: 'acme' });
    // Cube's conf folder, as its Docker image has it: cube.js and what it requires, beside node_modules.
    const confDir = makeTempDir('cube-conf');
    removeConf = confDir.remove;
    const conf = confDir.path;
    for (const file of ['cube.js', 'query-rewrite.js', 'package.json']) cpSync(join(ROOT, 'examples/cube', file), join(conf, file));
    const gateway = join(conf, 'node_modules/@cubejs-backend/api-gateway');
    mkdirSync(gateway, { recursive: true });
    writeFileSync(join(gateway, 'package.json'), JSON.stringify({ name: '@cubejs-backend/api-gateway', main: 'index.js' }));
    writeFileSync(join(gateway, 'index.js'), HANDLER_ERROR_SOURCE);
    // The light package's name (packages/dashboard exports the server package's ./embed as it is): this checkout.
    symlinkSync(ROOT, join(conf, 'node_modules/user-group-service-dashboard'), 'dir');
    process.env['UGS_URL'] = server.url;
    process.env['UGS_API_KEY'] = dashboardKey;
    const load = createRequire(join(conf, 'cube.js'));
    documented = load('./cube.js');
    ({ CubejsHandlerError: HandlerError } = load('@cubejs-backend/api-gateway'));
    checkAuth = createCubeCheckAuth({
      serviceUrl: server.url,
      apiKey: dashboardKey,
      revocationPollMs: 50,
      CubejsHandlerError: HandlerError,
    });
    attacker = await startAttacker('ES256');
  });
  after(async () => {
    await checkAuth?.close();
    await attacker?.host.close();
    removeConf();
  });

  it("the documented cube.js hands Cube a writable copy of a live session's claims", async () => {
    const token = await mintToken(server.api, 'acme');
    const answer = await cubeRequest(documented.checkAuth, HandlerError, `Bearer ${token}`);
    assert.equal(answer.status, 200, answer.error);
    assert.deepEqual(answer.securityContext, decodeJwt(token));
    // Cube and its hooks write into the context (ESM is strict: a frozen object would throw here).
    answer.securityContext!['cubeCloud'] = { groups: ['viewer'] };
    (answer.securityContext!['props'] as Record<string, unknown>)['region'] = 'changed';
    assert.equal(answer.securityContext!['cubeCloud'] !== undefined, true);
    assert.equal((await cubeRequest(documented.checkAuth, HandlerError, token)).status, 200, 'a header without a scheme too');
  });

  it("refuses with Cube's 403: no header, forged tokens, alg none, HS256 under the public key, a Testing session", async () => {
    assert.deepEqual(await cubeRequest(documented.checkAuth, HandlerError, undefined), {
      status: 403,
      error: 'No embed token: send it in the Authorization header',
    });
    const token = await mintToken(server.api, 'acme');
    const jwks = (await (await fetch(new URL('/.well-known/jwks.json', server.url))).json()) as { keys: { kid: string }[] };
    const real = { kid: jwks.keys[0]!.kid, alg: 'ES256' as const, publicJwk: jwks.keys[0]! };
    const other = { alg: 'EdDSA' as const, privateKey: (await generateKeyPair('EdDSA')).privateKey };
    const forged = await forgeries(decodeJwt(token), real, attacker, other);
    assert.ok(forged.some((f) => /none/.test(f.what)) && forged.some((f) => /HS256/.test(f.what)));
    for (const { what, token: forgery } of forged) {
      assert.deepEqual(await cubeRequest(checkAuth, HandlerError, forgery), { status: 403, error: 'Invalid embed token' }, what);
    }
    const testing = await server.client({ environment: 'Testing', access: 'read-write' });
    await testing.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    assert.equal((await cubeRequest(checkAuth, HandlerError, await mintToken(testing, 'acme'))).status, 403);
    assert.deepEqual(attacker.host.requests, []);
  });

  it('refuses a session ended by DELETE once the revocation feed says so, which Cube alone never reads', async () => {
    const token = await mintToken(server.api, 'acme');
    assert.equal((await cubeRequest(checkAuth, HandlerError, token)).status, 200);
    const ended = await server.api.call('DELETE', undefined, { path: `/api/embed_sessions/${decodeJwt(token).jti}` });
    assert.equal(ended.status, 200, ended.text);
    let answer = await cubeRequest(checkAuth, HandlerError, token);
    while (answer.status === 200) {
      await sleep(20);
      answer = await cubeRequest(checkAuth, HandlerError, token);
    }
    assert.deepEqual(answer, { status: 403, error: 'The embed session has been ended' });
    // Cube's built-in check, on the same token, still lets it through: it has no revocation.
    assert.equal((await cubeBuiltInCheck(new URL('/.well-known/jwks.json', server.url).href, token)).sub, 'acme');
  });

  it('fails closed with a 503 while revocations cannot be read (a key the feed refuses)', async () => {
    const refused = createCubeCheckAuth({ serviceUrl: server.url, apiKey: 'ugs_live_notakey', CubejsHandlerError: HandlerError });
    try {
      const answer = await cubeRequest(refused, HandlerError, await mintToken(server.api, 'acme'));
      assert.equal(answer.status, 503, answer.error);
    } finally {
      await refused.close();
    }
  });

  it("needs Cube's error class: without it Cube would answer every refusal with a 500", () => {
    assert.throws(() => createCubeCheckAuth({ serviceUrl: server.url } as never), /CubejsHandlerError/);
  });

  it("Cube's built-in check (CUBEJS_JWK_URL with ?alg=ES256) accepts a live session and refuses a forged one", async () => {
    const token = await mintToken(server.api, 'acme');
    assert.equal((await cubeBuiltInCheck(new URL('/.well-known/jwks.json?alg=ES256', server.url).href, token)).sub, 'acme');
    const jwkUrl = new URL('/.well-known/jwks.json?alg=ES256', server.url).href;
    const [published] = ((await (await fetch(jwkUrl)).json()) as { keys: { kid: string }[] }).keys;
    const other = { alg: 'EdDSA' as const, privateKey: (await generateKeyPair('EdDSA')).privateKey };
    for (const { what, token: forgery } of await forgeries(
      decodeJwt(token),
      { kid: published!.kid, alg: 'ES256', publicJwk: published! },
      attacker,
      other,
    )) {
      await assert.rejects(cubeBuiltInCheck(jwkUrl, forgery), what);
    }
  });

  it('the documented queryRewrite binds every query to the group, its subtree and a viewer region, and refuses a context without a group', () => {
    const query = { measures: ['orders.count'], filters: [{ member: 'orders.status', operator: 'equals', values: ['paid'] }] };
    const rewrite = (securityContext: unknown) => documented.queryRewrite(structuredClone(query), { securityContext });
    assert.deepEqual(rewrite({ sub: 'acme' }), {
      ...query,
      filters: [...query.filters, { member: 'orders.tenant_id', operator: 'equals', values: ['acme'] }],
    });
    assert.deepEqual(rewrite({ sub: 'acme', desc: ['acme-labs'] }), {
      ...query,
      filters: [...query.filters, { member: 'orders.tenant_id', operator: 'equals', values: ['acme', 'acme-labs'] }],
    });
    assert.deepEqual((rewrite({ sub: 'acme', vid: 'ann', vat: { region: 'eu' } }) as { filters: unknown[] }).filters.slice(-2), [
      { member: 'orders.tenant_id', operator: 'equals', values: ['acme'] },
      { member: 'orders.region', operator: 'equals', values: ['eu'] },
    ]);
    for (const context of [undefined, {}, { sub: '' }, { sub: 7 }]) assert.throws(() => rewrite(context), /No user group/);
  });
});

describe("Cube's built-in check and a key set holding an Ed25519 key", () => {
  const server = buildForSuite({ embed: { algorithm: 'EdDSA' } });

  it('cannot read the whole set (jwk-to-pem has no Ed25519), which is why the page gives CUBEJS_JWK_URL ?alg=ES256', async () => {
    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const token = await mintToken(server.api, 'acme');
    await assert.rejects(cubeBuiltInCheck(new URL('/.well-known/jwks.json', server.url).href, token), /Unsupported key type|OKP/i);
    await assert.rejects(cubeBuiltInCheck(new URL('/.well-known/jwks.json?alg=ES256', server.url).href, token), /not found/);
  });
});

describe('docs/integrations/cube.md', () => {
  it('holds each example file it shows, exactly', () => {
    const page = readFileSync(join(ROOT, 'docs/integrations/cube.md'), 'utf8');
    for (const file of ['cube.js', 'query-rewrite.js', 'model/orders.yml']) {
      assert.ok(page.includes(readFileSync(join(ROOT, 'examples/cube', file), 'utf8')), `the page shows examples/cube/${file} as it is`);
    }
  });
});
