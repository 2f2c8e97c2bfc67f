import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { CLOCK_TOLERANCE_SECONDS, MAX_SESSION_SECONDS, type SigningAlgorithm } from '../kernel/embed-tokens.js';
import type { Environment } from '../kernel/environment.js';

/** A key's algorithm (kernel/embed-tokens.ts, where the settings find them too). */
export { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../kernel/embed-tokens.js';

/**
 * A key that signs embed tokens, as stored. Which key signs, and which are
 * published, follows from the activation times alone (see `signingKeyTimeline`),
 * so every worker and replica reading the same rows agrees without coordination.
 */
export interface SigningKeyRecord {
  kid: string;
  /**
   * The environment whose tokens it signs. Each has its own keys, so a token of
   * one never verifies against the other's JWKS, whatever a verifier does with `env`.
   */
  environment: Environment;
  /** 1 for the environment's first key, then one more per rotation; unique per environment, so two processes cannot both add the same step.
   * */
  generation: number;
  algorithm: SigningAlgorithm;
  publicJwk: JWK;
  /** The private key as PKCS#8 PEM, sealed with the server secret under `signingKeySealContext(kid)`. */
  privateKeyCiphertext: Buffer;
  createdAt: string;
  /** When it starts signing: at once for the first key, after the JWKS max-age for a rotation. */
  activatesAt: string;
}

export type SigningKeyState = 'pending' | 'active' | 'retired' | 'expired';

export interface SigningKeyPhase {
  key: SigningKeyRecord;
  state: SigningKeyState;
  /** When the next key takes over (null while none is scheduled). */
  signsUntil: string | null;
  /** When no token it signed can still be live, so it leaves the JWKS (null while it may still sign). */
  publishedUntil: string | null;
}

/**
 * Where each key stands at `now`: pending (published, not yet signing, so
 * caches of the JWKS learn it first), active (the one signing), retired
 * (published until the last token it signed has expired), expired (gone).
 */
export function signingKeyTimeline(keys: readonly SigningKeyRecord[], now: Date): SigningKeyPhase[] {
  const ordered = [...keys].sort((a, b) => a.generation - b.generation);
  return ordered.map((key, index) => {
    const next = ordered.slice(index + 1).find((later) => later.activatesAt > key.activatesAt);
    const signsUntil = next?.activatesAt ?? null;
    const publishedUntil =
      signsUntil === null ? null : new Date(Date.parse(signsUntil) + (MAX_SESSION_SECONDS + CLOCK_TOLERANCE_SECONDS) * 1000).toISOString();
    const at = now.toISOString();
    let state: SigningKeyState;
    if (at < key.activatesAt) state = 'pending';
    else if (signsUntil === null || at < signsUntil) state = 'active';
    else if (publishedUntil !== null && at < publishedUntil) state = 'retired';
    else state = 'expired';
    return { key, state, signsUntil, publishedUntil };
  });
}

export function signingKeySealContext(kid: string): string {
  return `signing-key:${kid}`;
}

export interface GeneratedKeyPair {
  kid: string;
  publicJwk: JWK;
  privateKeyPem: string;
}

/** A fresh key pair; its kid is the RFC 7638 thumbprint of its public half, so it names the key and nothing else. */
export async function generateSigningKeyPair(algorithm: SigningAlgorithm): Promise<GeneratedKeyPair> {
  const { publicKey, privateKey } = generateFor(algorithm);
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  // Loaded here, when a key is made: `ugs --help` and the commands that make none need not load jose.
  const { calculateJwkThumbprint } = await import('jose');
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return {
    kid,
    publicJwk: { ...jwk, kid, alg: algorithm, use: 'sig' },
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

function generateFor(algorithm: SigningAlgorithm): { publicKey: KeyObject; privateKey: KeyObject } {
  switch (algorithm) {
    case 'EdDSA':
      return generateKeyPairSync('ed25519');
    case 'ES256':
      return generateKeyPairSync('ec', { namedCurve: 'P-256' });
    case 'RS256':
      return generateKeyPairSync('rsa', { modulusLength: 2048 });
  }
}
