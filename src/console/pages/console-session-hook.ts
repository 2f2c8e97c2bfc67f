import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { ConsoleSession, ConsoleSessionService } from '../console-session-service.js';
import { CONSOLE_SESSION_LIMITS } from '../console-session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The console session the cookie names (null before sign-in); `session` is where @fastify/csrf-protection finds its secret. */
    session: ConsoleSession | null;
  }
  interface FastifyContextConfig {
    /** A console route that needs no session: sign-in and the static assets. */
    consolePublic?: boolean;
  }
}

export const SESSION_COOKIE = 'ugs_console';
export const CONSOLE_PATH = '/console';

/**
 * Finds the session the `ugs_console` cookie names and makes its key the
 * request's principal, so pages call the services, and are rate limited and
 * audited, as that key. Without one, a page redirects to sign-in and a form
 * post is refused: a cross-site post carries no cookie (SameSite=Strict) and
 * lands here.
 */
export function resumeSession(sessions: ConsoleSessionService): onRequestAsyncHookHandler {
  return async (request, reply) => {
    const session = await sessions.resume(request.cookies[SESSION_COOKIE]);
    request.session = session;
    if (session) {
      request.principal = session.principal;
      return;
    }
    if (request.routeOptions.config.consolePublic) return;
    if (request.cookies[SESSION_COOKIE] !== undefined) clearSessionCookie(request, reply);
    if (request.method === 'GET' || request.method === 'HEAD') {
      const ended = request.cookies[SESSION_COOKIE] !== undefined;
      return reply.redirect(`${CONSOLE_PATH}/sign-in${ended ? '?ended=1' : ''}`, 303);
    }
    return reply.code(403).view('error', {
      title: 'Signed out',
      message: 'Your console session has ended or was never started: sign in again.',
      session: null,
    });
  };
}

/** HttpOnly, SameSite=Strict, Path=/console; Secure when the request came over https, directly or through a trusted proxy. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, sessionId: string): void {
  reply.setCookie(SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: 'strict',
    path: CONSOLE_PATH,
    secure: request.protocol === 'https',
    maxAge: CONSOLE_SESSION_LIMITS.absoluteMs / 1000,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', path: CONSOLE_PATH, secure: request.protocol === 'https' });
}

/**
 * Refuses a form post another site made: browsers say so in Sec-Fetch-Site,
 * older ones only in Origin. The CSRF token is the real check; this one also
 * covers sign-in, before there is a session to bind a token to.
 */
export function refuseCrossSitePost(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  if (request.method !== 'POST') return done();
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const crossSite =
    site !== undefined
      ? site !== 'same-origin' && site !== 'none'
      : origin !== undefined && origin !== `${request.protocol}://${request.host}`;
  if (!crossSite) return done();
  void reply.code(403).view('error', {
    title: 'Refused',
    message: 'This form was posted from another site; the console accepts its own forms only.',
    session: null,
  });
}
