import { ENVIRONMENT_DEFAULTS } from './embed-environments.js';
import { count, serviceBase, text } from './option-checks.js';

/** The service's two environments: each signs with its own keys (and a token carries its own as the `env` claim). */
export type EmbedEnvironment = 'Customer' | 'Testing';
export const ENVIRONMENTS: readonly string[] = ['Customer', 'Testing'];

export interface EmbedVerifierOptions {
  /** The user group service's base URL, e.g. `https://ugs.example.com` (a path prefix is kept). */
  serviceUrl: string;
  /**
   * The `aud` tokens must carry (default: the service's default for the environment, `embedded-dashboards`
   * for Customer (UGS_EMBED_AUDIENCE), `embedded-dashboards-testing` for Testing (UGS_EMBED_TESTING_AUDIENCE)).
   */
  audience?: string;
  /**
   * The `iss` tokens must carry (default: the service's default for the environment, `user-group-service`
   * for Customer (UGS_EMBED_ISSUER), `user-group-service-testing` for Testing (UGS_EMBED_TESTING_ISSUER)).
   */
  issuer?: string;
  /**
   * Any API key of the environment: enables polling the revocation feed. Without it, revoked tokens stay valid until they expire.
   * The feed covers the key's environment only, so once it has answered, tokens of the other environment are refused.
   * With it, the verifier fails closed: verify() refuses every token (revocations_unavailable) until the feed has been read
   * once, and whenever the last good read is older than maxRevocationStalenessMs.
   */
  apiKey?: string;
  /**
   * The only environment whose tokens are accepted (default `Customer`): it picks the key set
   * (`/.well-known/jwks.json`, or `/.well-known/jwks-testing.json` for Testing) and the default issuer and audience.
   * An API key of the other environment makes verify() refuse every token, saying so.
   */
  environment?: EmbedEnvironment;
  /** How often the revocation feed is polled, in ms (default 10 000). */
  revocationPollMs?: number;
  /**
   * With an apiKey: how old the last successful read of the revocation feed may be, in ms, before verify() refuses every
   * token with revocations_unavailable (a revocation may reach this verifier that much late at most). Default: six polls
   * and at least a minute (60 000 with the default poll); at least two polls (a verifier may miss one). Ignored without an apiKey.
   */
  maxRevocationStalenessMs?: number;
  /**
   * Clock skew tolerated on exp, nbf and iat, in seconds (default 30, at most 60). The service keeps a
   * revocation in its feed until 60 s after the last token it covers expires: a verifier tolerating more
   * would accept such a token, revoked, once its entry is gone.
   */
  clockToleranceSeconds?: number;
  /** The least time between two fetches of the key set for an unknown kid, in ms (default 30 000, jose's). */
  jwksCooldownMs?: number;
  /** How many verified tokens are cached until they expire (default 10 000; 0 disables the cache). */
  cacheMaxEntries?: number;
}

export interface ResolvedVerifierOptions {
  readonly base: URL;
  readonly audience: string;
  readonly issuer: string;
  readonly apiKey: string | undefined;
  readonly environment: EmbedEnvironment;
  readonly revocationPollMs: number;
  readonly maxRevocationStalenessMs: number;
  readonly clockToleranceSeconds: number;
  readonly jwksCooldownMs: number;
  readonly cacheMaxEntries: number;
}

/** How long past a token's exp the service keeps its revocations (CLOCK_TOLERANCE_SECONDS in src/signing-keys/signing-key.ts). */
export const MAX_CLOCK_TOLERANCE_SECONDS = 60;

function clockTolerance(value: number | undefined): number {
  const seconds = count('clockToleranceSeconds', value, 30, 0);
  if (seconds > MAX_CLOCK_TOLERANCE_SECONDS) {
    throw new TypeError(
      `clockToleranceSeconds must be at most ${MAX_CLOCK_TOLERANCE_SECONDS}: the service forgets a revocation ${MAX_CLOCK_TOLERANCE_SECONDS} s after the token it covers expired, so a longer tolerance would accept revoked tokens again`,
    );
  }
  return seconds;
}

function revocationStaleness(value: number | undefined, pollMs: number): number {
  if (value === undefined) return Math.max(6 * pollMs, 60_000);
  if (!Number.isSafeInteger(value) || value < 2 * pollMs) {
    throw new TypeError(
      `maxRevocationStalenessMs must be an integer of at least twice revocationPollMs (${2 * pollMs}): a verifier must be able to miss one poll`,
    );
  }
  return value;
}

/** The options with their defaults; a TypeError for a value that cannot work (a bug in the caller, not a bad token). */
export function resolveVerifierOptions(options: EmbedVerifierOptions): ResolvedVerifierOptions {
  const base = serviceBase(options.serviceUrl);
  if (options.environment !== undefined && !ENVIRONMENTS.includes(options.environment))
    throw new TypeError('environment must be "Customer" or "Testing"');
  const revocationPollMs = count('revocationPollMs', options.revocationPollMs, 10_000, 10);
  const environment = options.environment ?? 'Customer';
  const defaults = ENVIRONMENT_DEFAULTS[environment];
  return {
    base,
    audience: text('audience', options.audience, defaults.audience)!,
    issuer: text('issuer', options.issuer, defaults.issuer)!,
    apiKey: text('apiKey', options.apiKey, undefined),
    environment,
    revocationPollMs,
    maxRevocationStalenessMs: revocationStaleness(options.maxRevocationStalenessMs, revocationPollMs),
    clockToleranceSeconds: clockTolerance(options.clockToleranceSeconds),
    jwksCooldownMs: count('jwksCooldownMs', options.jwksCooldownMs, 30_000, 0),
    cacheMaxEntries: count('cacheMaxEntries', options.cacheMaxEntries, 10_000, 0),
  };
}
