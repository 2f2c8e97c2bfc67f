import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ApiKeyService } from '../api-key-service.js';
import type { Principal } from '../../kernel/principal.js';
import { ServiceError, unauthenticated } from '../../kernel/errors.js';
import type { FailedAuthThrottle } from './failed-auth-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key; set by the `authenticate` hook on every /api route. */
    principal: Principal;
  }
}

const SCHEME = /^(?:Token|Bearer)[ \t]+(\S+)[ \t]*$/i;

/**
 * `Authorization: Token <API_KEY>` (or `Bearer <API_KEY>`), or `Explo-Authorization: Token <API_KEY>` as the Customer
 * API documents it (the same keys, environments and access), checked before the body is read. A failure counts
 * against the client address; an address over its limit gets 429 for further failures, never for a valid key.
 */
export function authenticate(apiKeys: ApiKeyService, throttle: FailedAuthThrottle): onRequestHookHandler {
  const refusal = (request: FastifyRequest, error: unknown) =>
    error instanceof ServiceError && error.code === 'unauthenticated' ? throttle.refuse(request.ip, error) : error;
  // Callback-style with a synchronous answer for a cached key: an async hook costs a promise and a microtask per request.
  return (request, _reply, done) => {
    let key: string;
    try {
      key = presentedKey(request.headers.authorization, request.headers['explo-authorization']);
    } catch (error) {
      done(refusal(request, error) as Error);
      return;
    }
    const cached = apiKeys.cachedPrincipal(key);
    if (cached) {
      request.principal = cached;
      done();
      return;
    }
    apiKeys.authenticate(key).then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: unknown) => done(refusal(request, error) as Error),
    );
  };
}

function presentedKey(authorization: string | undefined, explo: string | string[] | undefined): string {
  if (explo !== undefined) {
    if (Array.isArray(explo)) throw unauthenticated('Send one Explo-Authorization header.');
    const key = keyIn(explo, 'Explo-Authorization');
    // Both headers, naming two keys: which one acts would be a guess.
    if (authorization !== undefined && authorization !== '' && keyIn(authorization, 'Authorization') !== key)
      throw unauthenticated('The Authorization and Explo-Authorization headers name different API keys; send one.');
    return key;
  }
  return keyIn(authorization, 'Authorization');
}

function keyIn(header: string | undefined, name: 'Authorization' | 'Explo-Authorization'): string {
  if (header === undefined || header === '') {
    throw unauthenticated(`Missing "${name}: Token <API_KEY>" header; create a key with \`ugs keys create\`.`);
  }
  const match = SCHEME.exec(header);
  if (!match?.[1]) throw unauthenticated(`The ${name} header must be "Token <API_KEY>" (or "Bearer <API_KEY>").`);
  return match[1];
}
