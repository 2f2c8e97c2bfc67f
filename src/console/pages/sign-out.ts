import type { FastifyInstance } from 'fastify';
import type { ConsoleSessionService } from '../console-session-service.js';
import { CONSOLE_PATH, clearSessionCookie, SESSION_COOKIE } from './console-session-hook.js';

/** POST /console/sign-out: ends this browser's session (CSRF-protected) and clears its cookie. */
export function registerSignOut(app: FastifyInstance, sessions: ConsoleSessionService): void {
  app.post('/sign-out', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    await sessions.signOut(request.cookies[SESSION_COOKIE]);
    clearSessionCookie(request, reply);
    return reply.redirect(`${CONSOLE_PATH}/sign-in`, 303);
  });
}
