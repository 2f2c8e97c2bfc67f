import { sign, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from '../signing-keys/signing-key.js';

/** The signing key as SigningKeys.active() gives it. */
export interface TokenSigningKey {
  kid: string;
  algorithm: SigningAlgorithm;
  privateKey: KeyObject;
}

/** node:crypto's arguments for each JWS algorithm: the digest (none for EdDSA) and, for ES256, JOSE's raw r||s signature. */
const SIGNING: Record<SigningAlgorithm, { digest: string | null; dsaEncoding?: 'ieee-p1363' }> = {
  EdDSA: { digest: null },
  ES256: { digest: 'sha256', dsaEncoding: 'ieee-p1363' },
  RS256: { digest: 'sha256' },
};

/**
 * A JWS in compact form (RFC 7515) over `claims` with the protected header
 * {alg, kid, typ}, the bytes jose's SignJWT makes, signed by node:crypto.
 * jose signs through WebCrypto: 2.6 times the bare signature's CPU for an
 * EdDSA token (bench/embed-tokens.ts), where this adds the JSON and base64url.
 * Signed in this thread: handing a signature to libuv's thread pool (sign's
 * callback form) costs ~12 µs more CPU than the signature's ~40 (job set-up,
 * two thread wake-ups). That hand-off paid only while a mint waited on its
 * row's fsync; a mint writes nothing now (issue 28).
 */
export function signEmbedToken(claims: object, key: TokenSigningKey, typ: string): string {
  const header = Buffer.from(JSON.stringify({ alg: key.algorithm, kid: key.kid, typ })).toString('base64url');
  const signingInput = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const { digest, dsaEncoding } = SIGNING[key.algorithm];
  const signature = sign(digest, Buffer.from(signingInput), dsaEncoding ? { key: key.privateKey, dsaEncoding } : key.privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}
