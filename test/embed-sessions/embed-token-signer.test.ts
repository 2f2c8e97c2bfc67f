import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, type JsonWebKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { signEmbedToken } from '../../src/embed-sessions/embed-token-signer.js';
import { generateSigningKeyPair, SIGNING_ALGORITHMS } from '../../src/signing-keys/signing-key.js';

describe('embed token signer', () => {
  for (const algorithm of SIGNING_ALGORITHMS) {
    it(`makes a ${algorithm} JWS that jose verifies, with the claims and header as given`, async () => {
      const pair = await generateSigningKeyPair(algorithm);
      const claims = { sub: 'acme', tid: 7, name: 'Acme – Ünïcode', props: { seats: 250 }, iat: 1_700_000_000, exp: 4_000_000_000 };
      const token = signEmbedToken(claims, { kid: pair.kid, algorithm, privateKey: createPrivateKey(pair.privateKeyPem) }, 'ugs-embed+jwt');
      const publicKey = createPublicKey({ key: pair.publicJwk as JsonWebKey, format: 'jwk' });
      const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: [algorithm] });
      assert.deepEqual(payload, claims);
      assert.deepEqual(protectedHeader, { alg: algorithm, kid: pair.kid, typ: 'ugs-embed+jwt' });
      assert.deepEqual(decodeProtectedHeader(token), protectedHeader);
    });
  }
});
