import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, notFound } from '../../kernel/errors.js';
import { sendServiceError } from './error-handler.js';

/** What someone who typed the host name alone, or a wrong path, is looking for. */
const WHERE_THINGS_ARE =
  'the API lives at /api/user, its reference at /docs (OpenAPI document: /openapi.json), and the operator console at /console.';

/**
 * A route's config flag: for API clients its path is as unknown as any other (404 under every method, never 405),
 * as GET / is, which answers browsers alone (src/app/http/routes/home-page.ts).
 */
export const NOT_FOUND_FOR_API_CLIENTS = 'notFoundForApiClients';

/** The 404 of a path no route serves, naming where things are. */
export function noRouteAnswer(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? '';
  return sendServiceError(reply, notFound(`No route ${request.method} ${path}; ${WHERE_THINGS_ARE}`));
}

/**
 * Answers requests no route matched: 405 with `Allow` when the path exists
 * under other methods, else 404. Routes are learnt from the `onRoute` hook, so
 * every route registered later is covered without listing it here.
 */
export function installMethodNotAllowed(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    if ((route.config as Record<string, unknown> | undefined)?.[NOT_FOUND_FOR_API_CLIENTS] === true) return;
    const source = `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\?:[A-Za-z0-9_]+/g, '[^/]+')}$`;
    let entry = routes.find((r) => r.pattern.source === source);
    if (!entry) routes.push((entry = { pattern: new RegExp(source), methods: new Set() }));
    for (const method of [route.method].flat()) entry.methods.add(method);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]);
    if (allowed.length === 0) return noRouteAnswer(request, reply);
    const allowedMethods = [...new Set(allowed)];
    return sendServiceError(
      reply,
      new ServiceError('method_not_allowed', `${request.method} is not supported on ${path}; use one of: ${allowedMethods.join(', ')}.`, {
        allowedMethods,
      }),
    );
  });
}
