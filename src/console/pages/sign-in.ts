import type { FastifyInstance } from 'fastify';
import { ServiceError, unauthenticated } from '../../kernel/errors.js';
import type { ConsoleSessionService } from '../console-session-service.js';
import type { FailedAuthThrottle } from '../../api-keys/http/failed-auth-throttle.js';
import { CONSOLE_PATH, SESSION_COOKIE, setSessionCookie } from './console-session-hook.js';
import { formField } from './form-body-parser.js';
import { publicRoute } from './public-route.js';

const NOT_VALID = 'That API key is not valid (or was revoked).';

/**
 * POST /console/sign-in. The key is posted once and authenticated exactly as
 * the API authenticates it (same service, same failed-auth throttle per
 * address); only its id is kept, in the session row. The browser gets the
 * session's random id, never the key.
 */
export function registerSignIn(app: FastifyInstance, sessions: ConsoleSessionService, throttle: FailedAuthThrottle): void {
  app.post('/sign-in', publicRoute(), async (request, reply) => {
    const key = formField(request.body, 'api_key').trim();
    try {
      if (key === '') throw unauthenticated('Enter an API key (ugsk_...), created with `ugs keys create`.');
      const { sessionId } = await sessions.signIn(key).catch((error: unknown) => {
        // The API's message speaks of an Authorization header the operator never saw; the throttle's, when it refuses, stays.
        if (error instanceof ServiceError && error.code === 'unauthenticated')
          throw throttle.refuse(request.ip, unauthenticated(NOT_VALID));
        throw error;
      });
      // The session this browser held, if any, ends here: one browser, one session, and no id planted beforehand lives on.
      await sessions.signOut(request.cookies[SESSION_COOKIE]);
      setSessionCookie(request, reply, sessionId);
      return reply.redirect(`${CONSOLE_PATH}/groups`, 303);
    } catch (error) {
      if (!(error instanceof ServiceError) || !['unauthenticated', 'forbidden', 'rate_limited'].includes(error.code)) throw error;
      const status = error.code === 'unauthenticated' ? 401 : error.code === 'forbidden' ? 403 : 429;
      if (error.details.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.details.retryAfterSeconds));
      return reply.code(status).view('sign-in', { title: 'Sign in', session: null, error: error.message, notice: null });
    }
  });
}
