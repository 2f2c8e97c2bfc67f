import { createRemoteJWKSet, customFetch, type FetchImplementation, type JWTVerifyGetKey } from 'jose';
import { describeFetchError } from './describe-fetch-error.js';

/** How often a successfully fetched key set is fetched again, in the background (jose's own default max age). */
const REFRESH_MS = 10 * 60_000;
const FETCH_TIMEOUT_MS = 5_000;
/** After a failed fetch, no new attempt before this (nor before the cooldown, when shorter). */
const FAILURE_BACKOFF_MS = 5_000;

/** The key set could not be fetched (and the keys in hand, if any, do not match the token). */
export class KeySetUnavailableError extends Error {
  override name = 'KeySetUnavailableError';
}

export interface SigningKeyStatus {
  /** When the key set was last fetched successfully; null before the first success. */
  readonly fetchedAt: Date | null;
  /** How many keys that key set holds. */
  readonly keys: number;
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
}

/**
 * The service's published keys, on jose's createRemoteJWKSet: cached, and
 * fetched again for a kid it does not know, at most once per cooldown. Two
 * things are added around it, through its custom fetch:
 * - a failed fetch keeps the last good key set (jose keeps it too: its max age
 *   is infinite here) and is retried only after a backoff, so an outage of the
 *   service neither refuses tokens signed by known keys nor gets hammered by
 *   a stream of unknown kids;
 * - the key set is refreshed in the background every 10 minutes (keys the
 *   service stopped publishing drop out) without making a verification wait.
 */
export class SigningKeySet {
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  private readonly backoffMs: number;
  private fetchedAt: number | undefined;
  private keys = 0;
  private lastError: string | null = null;
  private lastErrorAt: number | undefined;

  constructor(
    url: URL,
    cooldownMs: number,
    private readonly closed: AbortSignal,
  ) {
    this.backoffMs = Math.min(cooldownMs, FAILURE_BACKOFF_MS);
    this.remote = createRemoteJWKSet(url, {
      cooldownDuration: cooldownMs,
      cacheMaxAge: Number.POSITIVE_INFINITY,
      timeoutDuration: FETCH_TIMEOUT_MS,
      [customFetch]: this.fetchKeySet,
    });
  }

  /** The key for a token's header, as jose's jwtVerify asks for it. */
  readonly getKey: JWTVerifyGetKey = (header, token) => {
    if (this.fetchedAt !== undefined && Date.now() - this.fetchedAt > REFRESH_MS && !this.remote.reloading) {
      // Failures are recorded by fetchKeySet; the keys in hand stay in use.
      this.remote.reload().catch(() => {});
    }
    return this.remote(header, token);
  };

  status(): SigningKeyStatus {
    return {
      fetchedAt: this.fetchedAt === undefined ? null : new Date(this.fetchedAt),
      keys: this.keys,
      lastError: this.lastError,
      lastErrorAt: this.lastErrorAt === undefined ? null : new Date(this.lastErrorAt),
    };
  }

  private readonly fetchKeySet: FetchImplementation = async (url, options) => {
    if (this.closed.aborted) throw new KeySetUnavailableError('the verifier is closed');
    const failedAt = this.lastErrorAt;
    if (failedAt !== undefined && (this.fetchedAt ?? 0) < failedAt && Date.now() - failedAt < this.backoffMs) {
      throw new KeySetUnavailableError(`the service's keys could not be fetched (${this.lastError}); not retried yet`);
    }
    try {
      const response = await fetch(url, { ...options, signal: AbortSignal.any([options.signal, this.closed]) });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`${url} answered HTTP ${response.status}`);
      const body = JSON.parse(text) as { keys?: unknown } | null;
      if (!Array.isArray(body?.keys)) throw new Error(`${url} did not answer a JSON Web Key Set`);
      this.fetchedAt = Date.now();
      this.keys = body.keys.length;
      return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (error) {
      this.lastError = describeFetchError(error);
      this.lastErrorAt = Date.now();
      throw new KeySetUnavailableError(`the service's keys could not be fetched (${this.lastError})`);
    }
  };
}
