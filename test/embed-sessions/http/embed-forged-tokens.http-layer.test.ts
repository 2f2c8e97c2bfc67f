import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import {
  forgeries,
  signedWithRealKey,
  startAttacker,
  type Attacker,
  type EmbedAlg,
  type PublishedKey,
} from '../../helpers/forged-tokens.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';

/** An asymmetric algorithm other than `alg`, for "the real kid, another algorithm". */
const OTHER_ALG: Record<EmbedAlg, EmbedAlg> = { EdDSA: 'ES256', ES256: 'EdDSA', RS256: 'ES256' };

/**
 * Issue 26's outside attacker, at POST /api/embed_sessions/introspect: every
 * forged token (forged-tokens.ts) answers `{"active":false}` under each
 * signing algorithm the service offers, and no header makes the service
 * fetch anything from the attacker's host.
 */
for (const alg of ['EdDSA', 'ES256', 'RS256'] as const) {
  describe(`introspection refuses forged tokens (the service signing with ${alg})`, () => {
    // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
    after(async () => {
      await attacker?.host.close();
    });
    const server = buildForSuite({ embed: { algorithm: alg } });
    let api: ApiClient;
    let attacker: Attacker;
    let claims: JWTPayload;
    let published: PublishedKey;
    before(async () => {
      api = server.api;
      attacker = await startAttacker(alg);
      assert.equal((await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);
      const minted = await api.call('POST', { user_group_id: 'acme' }, { path: '/api/embed_sessions' });
      assert.equal(minted.status, 201, minted.text);
      claims = decodeJwt(minted.json.embed_session.token);
      const jwks = await api.call('GET', undefined, { path: '/.well-known/jwks.json' });
      const jwk = jwks.json.keys[0];
      published = { kid: jwk.kid, alg, publicJwk: jwk };
    });

    const introspect = async (token: string) => {
      const res = await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' });
      assert.equal(res.status, 200, res.text);
      return res.json as { active: boolean };
    };

    it('answers active for the live claims signed with the real key, whatever the key-naming headers say (the control)', async () => {
      const real = server.services.signingKeys.Customer.active();
      assert.equal(real.algorithm, alg);
      const token = await signedWithRealKey(claims, { kid: real.kid, alg, privateKey: real.privateKey }, attacker);
      assert.equal((await introspect(token)).active, true);
      assert.deepEqual(attacker.host.requests, []);
    });

    it('answers {"active":false} to alg none, HMAC keyed with the public key, jku, x5u, jwk, x5c and kid tricks, fetching nothing', async () => {
      const other = await generateKeyPair(OTHER_ALG[alg]);
      const forged = await forgeries(claims, published, attacker, { alg: OTHER_ALG[alg], privateKey: other.privateKey });
      for (const { what, token } of forged) assert.deepEqual(await introspect(token), { active: false }, what);
      assert.deepEqual(attacker.host.requests, [], "the service fetched from the attacker's host");
    });

    it('answers {"active":false} to a token the Testing key signed as a Customer one (iss, aud and env of Customer)', async () => {
      const testing = server.services.signingKeys.Testing.active();
      const asCustomer = await new SignJWT(claims)
        .setProtectedHeader({ alg: testing.algorithm, kid: testing.kid, typ: 'embed+jwt' })
        .sign(testing.privateKey);
      assert.deepEqual(await introspect(asCustomer), { active: false });
      const customer = server.services.signingKeys.Customer.active();
      const testingKidCustomerKey = await new SignJWT(claims)
        .setProtectedHeader({ alg: customer.algorithm, kid: testing.kid, typ: 'embed+jwt' })
        .sign(customer.privateKey);
      assert.deepEqual(await introspect(testingKidCustomerKey), { active: false }, 'the Testing kid names a key Customer does not publish');
    });
  });
}
