import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair, type JWTPayload } from 'jose';
// Through the package's own export, as a dashboard imports it.
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier } from 'user-group-service/embed';
import { forgeries, signedWithRealKey, startAttacker, type Attacker, type EmbedAlg, type PublishedKey } from '../helpers/forged-tokens.js';
import { buildForSuite } from '../helpers/build.js';

const OTHER_ALG: Record<EmbedAlg, EmbedAlg> = { EdDSA: 'ES256', ES256: 'EdDSA', RS256: 'ES256' };

/**
 * Issue 26's outside attacker against the package's verifier, with the real
 * service's JWKS: every forged token (forged-tokens.ts) is token_invalid, and
 * no header makes the verifier fetch from the attacker's host (jku, x5u).
 */
for (const alg of ['EdDSA', 'ES256', 'RS256'] as const) {
  describe(`embed verifier refuses forged tokens (the service signing with ${alg})`, () => {
    // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
    after(async () => {
      await verifier?.close();
      await attacker?.host.close();
    });
    const server = buildForSuite({ embed: { algorithm: alg }, apiKey: false });
    let verifier: EmbedVerifier;
    let attacker: Attacker;
    let claims: JWTPayload;
    let published: PublishedKey;
    before(async () => {
      const api = await server.client();
      attacker = await startAttacker(alg);
      assert.equal((await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);
      const minted = await api.call('POST', { user_group_id: 'acme' }, { path: '/api/embed_sessions' });
      assert.equal(minted.status, 201, minted.text);
      claims = decodeJwt(minted.json.embed_session.token);
      const jwk = (await api.call('GET', undefined, { path: '/.well-known/jwks.json' })).json.keys[0];
      published = { kid: jwk.kid, alg, publicJwk: jwk };
      verifier = createEmbedVerifier({ serviceUrl: server.url });
    });

    it('accepts the live claims signed with the real key, whatever the key-naming headers say (the control)', async () => {
      const real = server.services.signingKeys.Customer.active();
      const token = await signedWithRealKey(claims, { kid: real.kid, alg, privateKey: real.privateKey }, attacker);
      assert.equal((await verifier.verify(token)).sub, 'acme');
      assert.deepEqual(attacker.host.requests, []);
    });

    it('refuses alg none, HMAC keyed with the public key, jku, x5u, jwk, x5c and kid tricks with token_invalid, fetching nothing from the attacker', async () => {
      const other = await generateKeyPair(OTHER_ALG[alg]);
      const forged = await forgeries(claims, published, attacker, { alg: OTHER_ALG[alg], privateKey: other.privateKey });
      const cached = verifier.status().cachedTokens;
      for (const { what, token } of forged) {
        const error = await verifier.verify(token).then(
          () => assert.fail(`accepted: ${what}`),
          (e: unknown) => e,
        );
        assert.ok(error instanceof EmbedTokenError, `${what}: ${String(error)}`);
        assert.equal(error.code, 'token_invalid', `${what}: ${error.message}`);
      }
      assert.deepEqual(attacker.host.requests, [], "the verifier fetched from the attacker's host");
      assert.equal(verifier.status().cachedTokens, cached, 'no forgery was cached');
    });
  });
}
