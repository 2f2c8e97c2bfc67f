import cookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import view from '@fastify/view';
import { Eta } from 'eta';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { SharedLimits } from '../../api-keys/http/per-key-rate-limit.js';
import type { ConsoleSessionService } from '../console-session-service.js';
import { registerConsoleAssets } from './console-assets.js';
import { CONSOLE_HELMET } from './console-helmet.js';
import { installConsoleErrors } from './console-errors.js';
import { refuseCrossSitePost, resumeSession } from './console-session-hook.js';
import { installFormBodyParser } from './form-body-parser.js';
import { registerConsoleHome } from './console-home.js';
import { registerSignIn } from './sign-in.js';
import { registerSignInPage } from './sign-in-page.js';
import { registerSignOut } from './sign-out.js';

/** The console's templates, its layout among them (the service's home page, GET /, is drawn with it too). */
export const CONSOLE_VIEWS = fileURLToPath(new URL('../views/', import.meta.url));
/** helmet's own value, sent by the hook below instead of by helmet. */
const HSTS = 'max-age=31536000; includeSubDomains';

export interface ConsoleOptions {
  sessions: ConsoleSessionService;
  limits: SharedLimits;
  /** Registers the pages past sign-in (the page table, src/app/routes.ts), in this plugin's context. */
  pages: (app: FastifyInstance) => void;
}

/**
 * /console, the operator console: server-rendered pages over the same domain
 * services as the API (overview, groups, activity, webhooks: `pages`), signed in with an API key (console-session-hook.ts).
 * Registered with its prefix as an encapsulated plugin, so helmet's headers,
 * cookies, the form parser and CSRF reach these routes only: the API's
 * answers stay exactly as they were.
 */
export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  await app.register(helmet, CONSOLE_HELMET);
  await app.register(cookie);
  await app.register(view, { engine: { eta: new Eta({ autoEscape: true }) }, root: CONSOLE_VIEWS, viewExt: 'eta' });
  // The secret is the session's (request.session.csrfSecret, derived from its id): "@fastify/session" is
  // the plugin's name for "read the secret from request.session", which our hook fills.
  await app.register(csrfProtection, {
    sessionPlugin: '@fastify/session',
    sessionKey: 'csrfSecret',
    getToken: (request) => formToken(request.body),
  });
  installFormBodyParser(app);
  installConsoleErrors(app);
  app.decorateRequest('principal', null as never);
  app.decorateRequest('session', null);
  app.addHook('onRequest', (request, reply, done) => {
    // Pages show tokens and claims: no cache may keep them. Assets set their own.
    reply.header('cache-control', 'no-store');
    // https directly, or X-Forwarded-Proto from a trusted proxy (UGS_TRUST_PROXY); never from anyone else.
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done();
  });
  app.addHook('onRequest', refuseCrossSitePost);
  app.addHook('onRequest', resumeSession(options.sessions));
  // The API's budget per key, shared (per-key-rate-limit.ts); sign-in and assets opt out (no key yet).
  if (options.limits.perKeyRateLimit) await app.register(rateLimit, options.limits.perKeyRateLimit);

  registerConsoleAssets(app);
  registerConsoleHome(app);
  registerSignInPage(app);
  registerSignIn(app, options.sessions, options.limits.throttle);
  registerSignOut(app, options.sessions);
  options.pages(app);
}

function formToken(body: unknown): string | undefined {
  const token = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['_csrf'] : undefined;
  return typeof token === 'string' ? token : undefined;
}
