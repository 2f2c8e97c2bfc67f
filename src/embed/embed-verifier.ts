import { errors, jwtVerify } from 'jose';
import { parseEmbedClaims, type EmbedClaims } from './embed-claims.js';
import { ENVIRONMENT_DEFAULTS } from './embed-environments.js';
import { EmbedTokenError } from './embed-errors.js';
import { resolveVerifierOptions, type EmbedEnvironment, type EmbedVerifierOptions } from './embed-verifier-options.js';
import { RevocationFeed, type RevocationFeedStatus } from './revocation-feed.js';
import { versionKey } from './revocation-list.js';
import { KeySetUnavailableError, SigningKeySet, type SigningKeyStatus } from './signing-key-set.js';
import { TokenCache, type VerifiedToken } from './token-cache.js';

/** Asymmetric only: a symmetric alg would let anyone holding the public key sign. */
const ALGORITHMS = ['EdDSA', 'ES256', 'RS256'];
const TOKEN_TYPE = 'embed+jwt';
/** The cache's bound on the total length of the tokens it holds (characters). */
const CACHE_MAX_CHARS = 32 * 1024 * 1024;

export interface EmbedVerifierStatus {
  /** The environment whose tokens are accepted (the `environment` option; Customer by default). */
  readonly environment: EmbedEnvironment;
  readonly keys: SigningKeyStatus;
  readonly revocations: RevocationFeedStatus;
  readonly cachedTokens: number;
}

export interface EmbedVerifier {
  /** The token's claims, or an EmbedTokenError with code token_expired, token_revoked, token_invalid or (with an apiKey)
   * revocations_unavailable. */
  verify(token: string): Promise<EmbedClaims>;
  /** What the verifier last heard from the service, for a health or diagnostics endpoint. */
  status(): EmbedVerifierStatus;
  /** Stops the revocation poll and any request under way. verify() throws afterwards. */
  close(): Promise<void>;
}

const DISABLED_FEED: RevocationFeedStatus = {
  enabled: false,
  syncedAt: null,
  lastError: null,
  lastErrorAt: null,
  revokedSessions: 0,
  revokedTokenVersions: 0,
  revokedViewers: 0,
  stale: false,
  apiKeyRefused: false,
};

/**
 * Verifies embed tokens offline against the service's JWKS, with the
 * revocations its feed announced. A token seen before costs a Map lookup:
 * its signature and claims are not checked again, only its exp and the
 * revocations. With an API key it fails closed: no token is accepted while
 * the revocations are unknown (see maxRevocationStalenessMs).
 */
export function createEmbedVerifier(options: EmbedVerifierOptions): EmbedVerifier {
  const settings = resolveVerifierOptions(options);
  const closing = new AbortController();
  const keys = new SigningKeySet(
    new URL(ENVIRONMENT_DEFAULTS[settings.environment].jwksPath, settings.base),
    settings.jwksCooldownMs,
    closing.signal,
  );
  const feed =
    settings.apiKey === undefined
      ? undefined
      : new RevocationFeed(
          new URL('api/embed_sessions/revocations', settings.base),
          settings.apiKey,
          settings.revocationPollMs,
          settings.maxRevocationStalenessMs,
          closing.signal,
        );
  const cache = new TokenCache(settings.cacheMaxEntries, CACHE_MAX_CHARS);
  const tolerance = settings.clockToleranceSeconds;
  const verifyOptions = {
    algorithms: ALGORITHMS,
    typ: TOKEN_TYPE,
    issuer: settings.issuer,
    audience: settings.audience,
    clockTolerance: tolerance,
  };

  function live(entry: VerifiedToken, token: string): EmbedClaims {
    const now = Date.now();
    // Before anything else, cache hits too: a token verified while the feed was read must not outlive its reading.
    assertRevocationsKnown(now);
    if (now >= entry.expiresAtMs) {
      cache.delete(token);
      throw expired(entry.claims.exp);
    }
    checkEnvironment(entry.claims.env);
    const revoked = feed?.list.revocationReason(entry.claims.jti, entry.versionKey, entry.claims.vid, entry.claims.iat);
    if (revoked !== undefined) throw new EmbedTokenError('token_revoked', 'the embed session was revoked', revoked);
    return entry.claims;
  }

  /** Fails closed: with a feed, a token is accepted only while the list is known to hold every revocation. */
  function assertRevocationsKnown(now: number): void {
    const why = feed?.unavailable(now);
    if (why !== undefined) throw new EmbedTokenError('revocations_unavailable', why);
  }

  /**
   * Checked on every call, cache hits too: the feed may name its environment after a token was cached.
   * The other environment's tokens already fail at the signature (its keys are published elsewhere);
   * `env` is checked as well, and an API key of the other environment refuses everything, since its
   * feed cannot revoke the tokens this verifier accepts.
   */
  function checkEnvironment(env: EmbedEnvironment): void {
    const accepted = settings.environment;
    const fed = feed?.environment;
    if (fed !== undefined && fed !== accepted) {
      throw new EmbedTokenError(
        'token_invalid',
        `this verifier accepts ${accepted} tokens, but its API key is a ${fed} key, whose revocation feed cannot revoke them: give it a ${accepted} API key, or set environment: '${fed}'`,
      );
    }
    if (env !== accepted)
      throw new EmbedTokenError('token_invalid', `the token is of the ${env} environment; this verifier accepts ${accepted} tokens only`);
  }

  async function verifyAndCache(token: string): Promise<EmbedClaims> {
    // Before the first poll, this verifier would not know of any revocation yet.
    await feed?.firstPoll;
    // No signature check for a token that would be refused anyway.
    assertRevocationsKnown(Date.now());
    let payload;
    try {
      ({ payload } = await jwtVerify(token, keys.getKey, verifyOptions));
    } catch (error) {
      throw refusal(error);
    }
    const claims = parseEmbedClaims(payload);
    const entry = { claims, expiresAtMs: (claims.exp + tolerance) * 1000, versionKey: versionKey(claims.sub, claims.tv) };
    cache.set(token, entry);
    return live(entry, token);
  }

  return {
    async verify(token) {
      if (closing.signal.aborted) throw new Error('the embed verifier is closed');
      if (typeof token !== 'string' || token === '') throw new EmbedTokenError('token_invalid', 'the token is empty or not a string');
      const hit = cache.get(token);
      return hit === undefined ? verifyAndCache(token) : live(hit, token);
    },
    status() {
      return {
        environment: settings.environment,
        keys: keys.status(),
        revocations: feed?.status() ?? DISABLED_FEED,
        cachedTokens: cache.size,
      };
    },
    async close() {
      closing.abort();
      cache.clear();
      await feed?.close();
    },
  };
}

function expired(exp: number): EmbedTokenError {
  return new EmbedTokenError('token_expired', `the token expired at ${new Date(exp * 1000).toISOString()}`);
}

/** jose's refusal as an EmbedTokenError. jose's messages name the check that failed, never the token. */
function refusal(error: unknown): EmbedTokenError {
  if (error instanceof errors.JWTExpired) {
    const exp = error.payload.exp;
    return typeof exp === 'number' ? expired(exp) : new EmbedTokenError('token_expired', 'the token expired');
  }
  if (error instanceof errors.JWKSNoMatchingKey)
    return new EmbedTokenError('token_invalid', 'no key published by the service matches the token (kid, alg)');
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new EmbedTokenError('token_invalid', `the token's alg is not one of ${ALGORITHMS.join(', ')}`);
  if (error instanceof KeySetUnavailableError || error instanceof errors.JWKSInvalid) {
    // Not the token's fault, but a token that cannot be checked is refused all the same.
    return new EmbedTokenError('token_invalid', `the token could not be checked: ${error.message}`);
  }
  if (error instanceof errors.JOSEError) return new EmbedTokenError('token_invalid', error.message);
  return new EmbedTokenError('token_invalid', `the token could not be verified: ${error instanceof Error ? error.message : String(error)}`);
}
