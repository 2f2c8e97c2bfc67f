import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginCallback } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';
import { FailedAuthThrottle } from './failed-auth-throttle.js';
import type { HttpLimits } from '../../platform/config.js';

type RateLimitOptions = typeof rateLimit extends FastifyPluginCallback<infer O> ? O : never;
type RateLimitStore = NonNullable<RateLimitOptions['store']>;

/**
 * The abuse protections every way in to the service shares: the API and the
 * console count one budget per API key (UGS_RATE_LIMIT_PER_KEY_PER_MINUTE)
 * and one failed-authentication budget per address, so a key cannot double
 * its requests, nor an address its guesses, by switching between them.
 */
export interface SharedLimits {
  throttle: FailedAuthThrottle;
  /** Options for registering @fastify/rate-limit in one plugin; undefined when the limit is off. */
  perKeyRateLimit: RateLimitOptions | undefined;
}

export function sharedLimits(limits: HttpLimits): SharedLimits {
  return {
    throttle: new FailedAuthThrottle(limits.authFailuresPerMinute),
    perKeyRateLimit: perKeyRateLimit(limits.requestsPerKeyPerMinute),
  };
}

function perKeyRateLimit(max: number): RateLimitOptions | undefined {
  if (max === 0) return undefined;
  // @fastify/rate-limit builds one store per registration with `new store(options)`; a constructor
  // that returns an object yields that object, so every registration counts in this one.
  const shared = new FixedWindowCounts();
  const SharedStore = function () {
    return shared;
  } as unknown as RateLimitStore;
  return {
    global: true,
    // After authentication (preHandler), so the limit is per API key. Per process: each replica counts on its own.
    hook: 'preHandler',
    max,
    timeWindow: 60_000,
    store: SharedStore,
    keyGenerator: (request) => request.principal.keyId,
    errorResponseBuilder: (_request, context) =>
      new ServiceError('rate_limited', `This API key made more than ${context.max} requests this minute; retry in ${context.after}.`, {
        retryAfterSeconds: Math.ceil(context.ttl / 1000),
      }),
  };
}

const MAX_TRACKED = 10_000;

/** Requests per key in fixed windows, as @fastify/rate-limit's own local store counts them; bounded, oldest keys forgotten first. */
class FixedWindowCounts {
  private readonly windows = new Map<string, { current: number; startedAt: number }>();

  incr(key: string, callback: (error: Error | null, result: { current: number; ttl: number }) => void, timeWindow: number): void {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.startedAt + timeWindow <= now) {
      this.windows.delete(key);
      if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
      window = { current: 0, startedAt: now };
      this.windows.set(key, window);
    }
    window.current++;
    callback(null, { current: window.current, ttl: window.startedAt + timeWindow - now });
  }

  child(): FixedWindowCounts {
    return this;
  }
}
