import type { RateLimitPluginOptions } from '@fastify/rate-limit';
import { ServiceError } from '../../kernel/errors.js';

/** Checks per API key per minute: each opens a connection from this host, so a key cannot use it to scan a network. */
export const CHECKS_PER_KEY_PER_MINUTE = 10;

/**
 * The check's own budget, per key, for a scope holding the check route (the API's, and the console's form): refused
 * as the service's rate_limited, with the retry delay. The route sets `config.rateLimit` to CHECK_RATE_LIMIT.
 */
export const CHECK_RATE_LIMIT_PLUGIN: RateLimitPluginOptions = {
  global: false,
  hook: 'preHandler',
  keyGenerator: (request) => request.principal.keyId,
  errorResponseBuilder: (_request, context) =>
    new ServiceError('rate_limited', `This API key checked ${context.max} data sources this minute; retry in ${context.after}.`, {
      retryAfterSeconds: Math.ceil(context.ttl / 1000),
    }),
};

export const CHECK_RATE_LIMIT = { max: CHECKS_PER_KEY_PER_MINUTE, timeWindow: 60_000 };
