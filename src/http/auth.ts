import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ApiKeyService } from '../domain/api-key-service.js';
import type { Principal } from '../domain/api-key.js';
import { unauthenticated } from '../domain/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key; set by the `authenticate` hook on every /api route. */
    principal: Principal;
  }
}

const SCHEME = /^(?:Token|Bearer)[ \t]+(\S+)[ \t]*$/i;

/** `Authorization: Token <API_KEY>` (or `Bearer <API_KEY>`), checked before the body is read. */
export function authenticate(apiKeys: ApiKeyService): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      throw unauthenticated('Missing "Authorization: Token <API_KEY>" header; create a key with `ugs keys create`.');
    }
    const match = SCHEME.exec(header);
    if (!match?.[1]) throw unauthenticated('The Authorization header must be "Token <API_KEY>" (or "Bearer <API_KEY>").');
    request.principal = await apiKeys.authenticate(match[1]);
  };
}
