import type { IncomingMessage, ServerResponse } from 'node:http';
import { createEmbedVerifier, EmbedBindingError, EmbedTokenError, type EmbedClaims, type EmbedVerifier } from 'user-group-service/embed';
import {
  DASHBOARD_CSS,
  notForThisDashboardPage,
  ordersPage,
  refusedPage,
  revocationsUnavailablePage,
  sessionEndedPage,
} from './dashboard-pages.js';
import { openDemoOrders } from './demo-orders.js';
import { dashboardCsp, originsForRefusal } from './frame-ancestors.js';
import { listen, sendNotFound, sendPage, sendScript, sendStylesheet } from './html-response.js';
import { SESSION_WATCH_JS } from './session-watch.js';

/** The name the customer's backend mints sessions for (`dashboard`, claim `dsh`). */
export const DASHBOARD_NAME = 'orders';

export interface DashboardServerOptions {
  /** The user group service, for its JWKS and its revocation feed. */
  serviceUrl: string;
  /** Any API key of the environment the dashboard serves: the verifier polls the revocation feed with it. */
  apiKey: string;
  /** How often the verifier polls the revocation feed (its default: 10 000 ms). */
  revocationPollMs?: number;
  /** How often an open orders page asks whether its session still holds (default: revocationPollMs, else 10 000 ms). */
  sessionCheckMs?: number;
  port?: number;
  host?: string;
}

export interface DashboardServer {
  /** Where browsers reach it, e.g. http://localhost:4100. */
  readonly url: string;
  readonly verifier: EmbedVerifier;
  close(): Promise<void>;
}

/**
 * The dashboard: GET /?token=<embed token>. It verifies the token offline
 * (the service's JWKS, and the revocations its feed announced), lets only the
 * session's origins frame it, and shows the orders of the session's region
 * (and sales rep, when the session's props carry one), queried with them
 * bound as parameters. Refused tokens get 401 and a page that says why in
 * words a viewer understands. An open orders page asks GET /session?token=
 * every sessionCheckMs and reloads once that is refused, so a session ended
 * meanwhile says so without a reload by the person.
 */
export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const verifier = createEmbedVerifier({
    serviceUrl: options.serviceUrl,
    apiKey: options.apiKey,
    revocationPollMs: options.revocationPollMs,
  });
  const orders = openDemoOrders();
  const sessionCheckMs = options.sessionCheckMs ?? options.revocationPollMs ?? 10_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
    if (url.pathname === '/style.css') return sendStylesheet(res, DASHBOARD_CSS);
    if (url.pathname === '/session-watch.js') return sendScript(res, SESSION_WATCH_JS);
    const token = url.searchParams.get('token') ?? '';
    if (url.pathname === '/session') return sendSessionState(res, token);
    if (url.pathname !== '/') return sendNotFound(res);
    let claims: EmbedClaims;
    try {
      claims = await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof EmbedTokenError)) throw error;
      // The message says why and never quotes the token, so it may be logged.
      console.error(`dashboard: refused a session (${error.code}): ${error.message}`);
      const csp = dashboardCsp(originsForRefusal(token, error));
      if (error.code === 'revocations_unavailable') return sendPage(res, 503, revocationsUnavailablePage(), csp);
      if (error.code === 'token_invalid') return sendPage(res, 401, refusedPage(), csp);
      return sendPage(res, 401, sessionEndedPage(error.code === 'token_revoked' ? 'revoked' : 'expired'), csp);
    }
    const csp = dashboardCsp(claims.org);
    if (claims.dsh !== undefined && claims.dsh !== DASHBOARD_NAME) {
      return sendPage(res, 403, notForThisDashboardPage(`The session was started for the dashboard "${claims.dsh}", not this one.`), csp);
    }
    try {
      sendPage(res, 200, ordersPage(claims, orders.viewFor(claims), sessionCheckMs), dashboardCsp(claims.org, { watch: true }));
    } catch (error) {
      // Fails closed: a query whose filter cannot be bound is not run at all.
      if (!(error instanceof EmbedBindingError)) throw error;
      sendPage(
        res,
        403,
        notForThisDashboardPage(`This dashboard needs the user group property the session lacks or cannot use: ${error.message}`),
        csp,
      );
    }
  }

  /** What session-watch.js asks: 204 while the session holds, 401 once it ended, expired or is refused, 503 while that cannot be told. */
  async function sendSessionState(res: ServerResponse, token: string): Promise<void> {
    let status = 204;
    try {
      await verifier.verify(token);
    } catch (error) {
      if (!(error instanceof EmbedTokenError)) throw error;
      status = error.code === 'revocations_unavailable' ? 503 : 401;
    }
    res.writeHead(status, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' }).end();
  }

  const server = await listen(options.host ?? '127.0.0.1', options.port ?? 0, handle);
  return {
    url: `http://localhost:${server.port}`,
    verifier,
    async close() {
      await server.close();
      await verifier.close();
      orders.close();
    },
  };
}
