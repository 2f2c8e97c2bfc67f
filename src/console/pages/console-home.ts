import type { FastifyInstance } from 'fastify';
import { CONSOLE_PATH } from './console-session-hook.js';
import { publicRoute } from './public-route.js';

/** GET /console/: the groups when signed in, sign-in otherwise. */
export function registerConsoleHome(app: FastifyInstance): void {
  app.get('/', publicRoute(), async (request, reply) => reply.redirect(`${CONSOLE_PATH}/${request.session ? 'groups' : 'sign-in'}`, 303));
}
