import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { createVerifier } from 'fast-jwt';
import { createRemoteJWKSet, jwtVerify, type JWK } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import jwkToPem from 'jwk-to-pem';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../src/kernel/embed-tokens.js';
import { build, type TestApp } from '../helpers/build.js';
import { mintToken } from '../helpers/embed-sessions.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ISSUER = 'user-group-service';
const AUDIENCE = 'embedded-dashboards';
/** Debian's python3, with its python3-jwt and python3-cryptography (.ci/run installs them when missing). */
const PYJWT = fileURLToPath(new URL('../../../test/signing-keys/pyjwt-verify.py', import.meta.url));

/** The verifiers a dashboard team runs, each given only the JWKS URL, the issuer and the audience, as its docs show. */
type Verify = (jwksUrl: string, token: string, algorithm: SigningAlgorithm) => Promise<string>;

const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()) as { kid: string; alg: string };
const keyOf = async (jwksUrl: string, token: string): Promise<JWK> => {
  const { keys } = (await (await fetch(jwksUrl)).json()) as { keys: JWK[] };
  const key = keys.find((k) => k.kid === headerOf(token).kid);
  if (!key) throw new Error('no key of that kid');
  return key;
};

const VERIFIERS: Record<string, Verify> = {
  async jose(jwksUrl, token, algorithm) {
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUrl)), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: [algorithm],
    });
    return payload.sub!;
  },
  /** Cube's pair (and many Node apps'): every key of the set made a PEM, as Cube's JWK handling does, then jsonwebtoken. */
  async 'jsonwebtoken + jwk-to-pem'(jwksUrl, token, algorithm) {
    const { keys } = (await (await fetch(jwksUrl)).json()) as { keys: JWK[] };
    const pems = new Map(keys.map((k) => [k.kid, jwkToPem(k as jwkToPem.JWK)]));
    const claims = jsonwebtoken.verify(token, pems.get(headerOf(token).kid)!, {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: [algorithm as jsonwebtoken.Algorithm],
    }) as jsonwebtoken.JwtPayload;
    return claims.sub!;
  },
  async 'fast-jwt'(jwksUrl, token, algorithm) {
    const jwk = await keyOf(jwksUrl, token);
    const pem = createPublicKey({ key: jwk as never, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
    const verify = createVerifier({ key: pem, allowedIss: ISSUER, allowedAud: AUDIENCE, algorithms: [algorithm as never] });
    return (verify(token) as { sub: string }).sub;
  },
  async 'PyJWT + cryptography'(jwksUrl, token, algorithm) {
    const { stdout } = await run('/usr/bin/python3', [PYJWT, jwksUrl, token, algorithm, ISSUER, AUDIENCE]);
    const answer = stdout.trim();
    if (answer.startsWith('refused:')) throw new Error(answer);
    return answer;
  },
};

/** What each library cannot verify at all: jsonwebtoken 9 and jwk-to-pem 2 have no Ed25519. */
const UNSUPPORTED: Record<string, SigningAlgorithm[]> = { 'jsonwebtoken + jwk-to-pem': ['EdDSA'] };

async function startOn(
  algorithm: SigningAlgorithm,
  t: Parameters<typeof build>[0],
  options: Parameters<typeof build>[1] = {},
): Promise<TestApp> {
  return build(t, { ...options, kind: 'sqlite', embed: { algorithm } });
}

describe('embed tokens as the common verifiers read them, with only the JWKS URL, issuer and audience', () => {
  for (const algorithm of SIGNING_ALGORITHMS) {
    it(`${algorithm}: every library that has the algorithm accepts the token, from the whole key set and from ?alg=${algorithm}`, async (t) => {
      const server = await startOn(algorithm, t);
      await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
      const token = await mintToken(server.api, 'acme');
      assert.equal(headerOf(token).alg, algorithm);
      for (const jwksUrl of [`${server.url}/.well-known/jwks.json`, `${server.url}/.well-known/jwks.json?alg=${algorithm}`]) {
        for (const [library, verify] of Object.entries(VERIFIERS)) {
          if (UNSUPPORTED[library]?.includes(algorithm)) {
            await assert.rejects(verify(jwksUrl, token, algorithm), `${library} has no ${algorithm}`);
            continue;
          }
          assert.equal(await verify(jwksUrl, token, algorithm), 'acme', `${library}, ${jwksUrl}`);
        }
      }
    });
  }

  it('a fresh install with the default settings: jsonwebtoken with jwk-to-pem reads the plain key set, given only its URL, the issuer and the audience', async (t) => {
    // No embed setting: what a first `ugs serve` makes.
    const server = await build(t, { kind: 'sqlite' });
    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const token = await mintToken(server.api, 'acme');
    assert.equal(headerOf(token).alg, 'ES256');
    const jwksUrl = `${server.url}/.well-known/jwks.json`;
    const { keys } = (await (await fetch(jwksUrl)).json()) as { keys: JWK[] };
    // Cube's pair as a dashboard team writes it: every key of the set made a PEM, no algorithm named.
    const pems = new Map(keys.map((k) => [k.kid, jwkToPem(k as jwkToPem.JWK)]));
    const claims = jsonwebtoken.verify(token, pems.get(headerOf(token).kid)!, {
      issuer: ISSUER,
      audience: AUDIENCE,
    }) as jsonwebtoken.JwtPayload;
    assert.equal(claims.sub, 'acme');
    for (const [library, verify] of Object.entries(VERIFIERS)) assert.equal(await verify(jwksUrl, token, 'ES256'), 'acme', library);
  });

  it('a deployment moving from EdDSA to ES256 never locks jsonwebtoken out: ?alg=ES256 is a set it reads through the rotation', async (t) => {
    const dir = makeTempDir('ugs-verifiers-rotation');
    // The rotation is played in the past, so that the new key takes over at the real present: PyJWT, like any verifier,
    // refuses a token issued in its future. maxAge is the default key set max-age (UGS_EMBED_JWKS_MAX_AGE_SECONDS).
    const maxAgeMs = 300_000;
    const before = await startOn('EdDSA', t, { dataDir: dir.path });
    await before.api.getOrCreate({ user_group_id: 'acme', name: 'Acme' });
    const key = before.api.key!;
    await before.close();
    let clock = Date.now() - maxAgeMs - 5_000;
    // The folder goes with the last server: handed as an owned folder, it is removed once that server has closed.
    const server = await startOn('ES256', t, { dataDir: dir, now: () => clock, apiKey: false });
    const api = new (before.api.constructor as new (url: string, key: string) => typeof before.api)(server.url, key);
    await server.services.signingKeys.Customer.rotate();
    const whole = `${server.url}/.well-known/jwks.json`;
    const es256 = `${whole}?alg=ES256`;
    const published = (await (await fetch(whole)).json()) as { keys: JWK[] };
    assert.deepEqual(published.keys.map((k) => k.alg).sort(), ['ES256', 'EdDSA'], 'both keys published during the rotation');
    // The whole set is unreadable to Cube's pair: one Ed25519 key and jwk-to-pem throws for the set.
    assert.throws(() => published.keys.map((k) => jwkToPem(k as jwkToPem.JWK)));
    const filtered = (await (await fetch(es256)).json()) as { keys: JWK[] };
    assert.deepEqual(
      filtered.keys.map((k) => k.alg),
      ['ES256'],
    );
    assert.equal(server.services.signingKeys.Customer.jwksMaxAgeSeconds * 1000, maxAgeMs);
    clock = Date.now();
    const after = await mintToken(api, 'acme');
    assert.equal(headerOf(after).alg, 'ES256');
    assert.equal(await VERIFIERS['jsonwebtoken + jwk-to-pem']!(es256, after, 'ES256'), 'acme');
    for (const library of ['jose', 'fast-jwt', 'PyJWT + cryptography'])
      assert.equal(await VERIFIERS[library]!(es256, after, 'ES256'), 'acme', library);
  });

  it('answers ?alg= naming no algorithm of the service with a 400 naming the choices', async (t) => {
    const server = await startOn('ES256', t);
    for (const path of ['/.well-known/jwks.json?alg=HS256', '/.well-known/jwks-testing.json?alg=none']) {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 400, path);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /EdDSA|ES256|RS256/);
    }
    const testing = (await (await fetch(`${server.url}/.well-known/jwks-testing.json?alg=EdDSA`)).json()) as { keys: JWK[] };
    assert.deepEqual(testing.keys, [], 'an ES256 deployment has no EdDSA key to list');
  });
});
