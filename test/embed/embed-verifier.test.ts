import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
// Through the package's own export, as a dashboard imports it.
import {
  createEmbedVerifier,
  EmbedTokenError,
  type EmbedClaims,
  type EmbedTokenErrorCode,
  type EmbedVerifier,
} from 'user-group-service/embed';
import { EMBED_ALGS, embedClaims, FakeEmbedService, generateSigningKey, signEmbedToken, type SigningKey } from './fake-embed-service.js';

/** The refusal verify() gives, checked to say why without quoting the token. */
async function refusal(verifier: EmbedVerifier, token: string): Promise<EmbedTokenError> {
  const error = await verifier.verify(token).then(
    () => assert.fail('the token was accepted'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof EmbedTokenError, `not an EmbedTokenError: ${String(error)}`);
  assert.ok(error.message.length > 0);
  if (typeof token === 'string' && token.length > 8) assert.ok(!error.message.includes(token), 'the message quotes the token');
  return error;
}

async function assertRefused(verifier: EmbedVerifier, token: string, code: EmbedTokenErrorCode, why?: RegExp): Promise<void> {
  const error = await refusal(verifier, token);
  assert.equal(error.code, code, error.message);
  if (process.env.SHOW_MESSAGES) console.log(code, '|', error.message);
  if (why) assert.match(error.message, why);
}

function base64url(json: unknown): string {
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

describe('embed verifier: signatures, types and claims', () => {
  let service: FakeEmbedService;
  let verifier: EmbedVerifier;
  const keys = new Map<string, SigningKey>();
  let ed: SigningKey;
  before(async () => {
    service = await FakeEmbedService.start();
    for (const alg of EMBED_ALGS) {
      const key = await generateSigningKey(alg);
      keys.set(alg, key);
      service.publish(key);
    }
    ed = keys.get('EdDSA')!;
    verifier = createEmbedVerifier({ serviceUrl: `${service.url}/` });
  });
  after(async () => {
    await verifier.close();
    await service.close();
  });

  for (const alg of EMBED_ALGS) {
    it(`accepts a token signed with ${alg} and returns its typed claims`, async () => {
      const claims = embedClaims({ dsh: 'sales', org: ['https://app.example.com'], anc: ['root'], desc: ['acme-eu'] });
      const verified: EmbedClaims = await verifier.verify(await signEmbedToken(keys.get(alg)!, claims));
      assert.deepEqual(verified, claims);
      assert.equal(verified.env, 'Customer');
      assert.equal(verified.tid, 7);
      assert.ok(Object.isFrozen(verified) && Object.isFrozen(verified.props), 'claims shared through the cache must be frozen');
    });
  }

  it('answers a token seen before from its cache (same claims object, no new key fetch)', async () => {
    const token = await signEmbedToken(ed);
    const first = await verifier.verify(token);
    const fetches = service.jwksRequests;
    assert.equal(await verifier.verify(token), first);
    assert.equal(service.jwksRequests, fetches);
    assert.ok(verifier.status().cachedTokens >= 1);
  });

  it('refuses an expired token with token_expired, also once it expired in the cache', async () => {
    const now = Math.floor(Date.now() / 1000);
    await assertRefused(
      verifier,
      await signEmbedToken(ed, embedClaims({ iat: now - 4000, exp: now - 3600 })),
      'token_expired',
      /expired at/,
    );
    // Accepted and cached while live, then refused from the cache once exp and the clock tolerance have passed.
    const short = createEmbedVerifier({ serviceUrl: service.url, clockToleranceSeconds: 1 });
    try {
      const token = await signEmbedToken(ed, embedClaims({ iat: now, exp: now + 2 }));
      await short.verify(token);
      await new Promise((resolve) => setTimeout(resolve, (now + 3) * 1000 - Date.now() + 50));
      await assertRefused(short, token, 'token_expired');
    } finally {
      await short.close();
    }
  });

  it('refuses a tampered payload and a signature by an unpublished key', async () => {
    const [header, , signature] = (await signEmbedToken(ed)).split('.');
    const tampered = `${header}.${base64url(embedClaims({ props: { region: 'us' } }))}.${signature}`;
    await assertRefused(verifier, tampered, 'token_invalid', /signature/);
    const impostor = await generateSigningKey('EdDSA', ed.kid);
    await assertRefused(verifier, await signEmbedToken(impostor), 'token_invalid', /signature/);
  });

  it('refuses a token of another type, or without one', async () => {
    await assertRefused(verifier, await signEmbedToken(ed, embedClaims(), { typ: 'JWT' }), 'token_invalid', /typ/);
    await assertRefused(verifier, await signEmbedToken(ed, embedClaims(), { typ: undefined }), 'token_invalid', /typ/);
  });

  it('refuses alg none and HS256 signed with a public key as the secret', async () => {
    const unsecured = new UnsecuredJWT(embedClaims()).encode();
    const none = `${base64url({ alg: 'none', typ: 'embed+jwt', kid: ed.kid })}.${unsecured.split('.')[1]}.`;
    await assertRefused(verifier, none, 'token_invalid', /alg/);
    const rsa = keys.get('RS256')!;
    const pem = createPublicKey({ key: rsa.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    for (const [kid, secret] of [
      [rsa.kid, Buffer.from(pem)],
      [ed.kid, Buffer.from(ed.publicJwk.x!, 'base64url')],
    ] as const) {
      const hs = await new SignJWT(embedClaims()).setProtectedHeader({ alg: 'HS256', kid, typ: 'embed+jwt' }).sign(secret);
      await assertRefused(verifier, hs, 'token_invalid', /alg/);
    }
  });

  it('refuses another issuer or audience, and checks the ones configured', async () => {
    await assertRefused(verifier, await signEmbedToken(ed, embedClaims({ iss: 'someone-else' })), 'token_invalid', /iss/);
    await assertRefused(verifier, await signEmbedToken(ed, embedClaims({ aud: 'other-dashboards' })), 'token_invalid', /aud/);
    await assertRefused(verifier, await signEmbedToken(ed, embedClaims({ aud: undefined })), 'token_invalid', /aud/);
    const custom = createEmbedVerifier({ serviceUrl: service.url, issuer: 'ugs-eu', audience: 'bi' });
    try {
      const claims = await custom.verify(await signEmbedToken(ed, embedClaims({ iss: 'ugs-eu', aud: 'bi' })));
      assert.equal(claims.aud, 'bi');
      await assertRefused(custom, await signEmbedToken(ed), 'token_invalid', /iss/);
    } finally {
      await custom.close();
    }
  });

  it('refuses a token missing a required claim, naming it', async () => {
    for (const claim of ['sub', 'env', 'tid', 'name', 'map', 'props', 'tv', 'jti', 'iat', 'exp']) {
      const error = await refusal(verifier, await signEmbedToken(ed, embedClaims({ [claim]: undefined })));
      assert.equal(error.code, 'token_invalid', `${claim}: ${error.message}`);
      assert.match(error.message, new RegExp(`"${claim}"`), `${claim}: ${error.message}`);
    }
  });

  it('refuses a claim of the wrong type, naming it', async () => {
    const mistyped: [string, unknown][] = [
      ['sub', 7],
      ['sub', ''],
      ['env', 'Production'],
      ['tid', '7'],
      ['tid', 1.5],
      ['name', null],
      ['map', []],
      ['map', { sales: { nested: true } }],
      ['props', 'region=eu'],
      ['props', null],
      ['tv', 3],
      ['jti', false],
      ['iat', 'yesterday'],
      ['exp', '2099-01-01'],
      ['dsh', 5],
      ['org', 'https://app.example.com'],
      ['anc', [1, 2]],
      ['desc', 'acme-eu'],
      ['gprops', 'region=eu'],
      ['gprops', null],
    ];
    for (const [claim, value] of mistyped) {
      const error = await refusal(verifier, await signEmbedToken(ed, embedClaims({ [claim]: value })));
      assert.equal(error.code, 'token_invalid', `${claim}=${JSON.stringify(value)}: ${error.message}`);
      assert.match(error.message, new RegExp(`"${claim}"`), `${claim}=${JSON.stringify(value)}: ${error.message}`);
    }
  });

  it('refuses garbage with token_invalid, never a crash', async () => {
    const valid = await signEmbedToken(ed);
    const garbage = [
      '',
      'garbage',
      'a.b.c',
      '...',
      valid.slice(0, -10),
      `${valid}.extra`,
      `${base64url([1])}.${base64url([2])}.x`,
      '\u0000'.repeat(50),
      'x'.repeat(100_000),
    ];
    for (const token of garbage) await assertRefused(verifier, token, 'token_invalid');
    for (const notAString of [undefined, null, 42, { token: valid }]) {
      await assertRefused(verifier, notAString as unknown as string, 'token_invalid');
    }
  });

  it('refuses options that cannot work with a TypeError, before any request', () => {
    for (const options of [
      { serviceUrl: 'ugs.example.com' },
      { serviceUrl: 'ftp://ugs.example.com' },
      { serviceUrl: service.url, revocationPollMs: 0 },
      { serviceUrl: service.url, clockToleranceSeconds: -1 },
      { serviceUrl: service.url, apiKey: '' },
      { serviceUrl: service.url, audience: '' },
    ]) {
      assert.throws(() => createEmbedVerifier(options), TypeError, JSON.stringify(options));
    }
  });

  it('never polls a revocation feed without an API key, and says so in status()', async () => {
    const status = verifier.status();
    assert.equal(status.revocations.enabled, false);
    assert.equal(service.feedRequests, 0);
    assert.equal(status.keys.keys, 3);
    assert.ok(status.keys.fetchedAt instanceof Date);
  });
});
