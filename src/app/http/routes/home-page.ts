import helmet from '@fastify/helmet';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import { CONSOLE_HELMET } from '../../../console/pages/console-helmet.js';
import { CONSOLE_VIEWS } from '../../../console/pages/console-plugin.js';
import { packageManifest } from '../../../platform/package-root.js';
import { noRouteAnswer, NOT_FOUND_FOR_API_CLIENTS } from '../../../platform/http/method-not-allowed.js';
import { prefersHtml } from '../../../platform/http/prefers-html.js';

/**
 * GET /: what someone who typed the host name into a browser meets. A browser (Accept naming text/html before JSON)
 * gets a page in the console's layout and under its security headers, linking the console, the API reference and the
 * OpenAPI document; every other client gets the JSON 404 it always got, which names the same places (an unknown path,
 * to the API). Not in the OpenAPI document: it is no part of the API. Registered as a plugin of its own so helmet's
 * headers reach this page only.
 */
export async function homePage(app: FastifyInstance): Promise<void> {
  // global: false: the headers are set by reply.helmet() on the page alone; the JSON answer keeps the API's headers.
  await app.register(helmet, { ...CONSOLE_HELMET, global: false });
  await app.register(view, { engine: { eta: new Eta({ autoEscape: true }) }, root: CONSOLE_VIEWS, viewExt: 'eta' });
  const { description, version } = packageManifest();
  app.get('/', { schema: { hide: true }, config: { [NOT_FOUND_FOR_API_CLIENTS]: true } }, async (request, reply) => {
    // The same address answers two ways: a cache must keep them apart.
    reply.header('vary', 'Accept');
    if (!prefersHtml(request.headers.accept)) return noRouteAnswer(request, reply);
    reply.helmet();
    return reply
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .viewAsync('home', { pageTitle: 'User group service', description, version });
  });
}
