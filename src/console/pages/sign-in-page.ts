import type { FastifyInstance } from 'fastify';
import { CONSOLE_PATH } from './console-session-hook.js';
import { publicRoute } from './public-route.js';

/** GET /console/sign-in: the form (the groups when already signed in), with a notice when the session has ended. */
export function registerSignInPage(app: FastifyInstance): void {
  app.get<{ Querystring: { ended?: string } }>('/sign-in', publicRoute(), async (request, reply) => {
    if (request.session) return reply.redirect(`${CONSOLE_PATH}/groups`, 303);
    const notice = request.query.ended === undefined ? null : 'Your session has ended. Sign in again.';
    return reply.view('sign-in', { title: 'Sign in', session: null, error: null, notice });
  });
}
