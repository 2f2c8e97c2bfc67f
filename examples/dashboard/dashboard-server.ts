import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  createEmbedVerifier,
  DataRouterError,
  EmbedBindingError,
  EmbedTokenError,
  type EmbedClaims,
  type EmbedVerifier,
} from 'user-group-service/embed';
import {
  DASHBOARD_CSS,
  notForThisDashboardBody,
  notForThisDashboardPage,
  ordersPage,
  ordersSection,
  PRODUCT_FILTER,
  refusedPage,
  revocationsUnavailablePage,
  sessionEndedBody,
  type SessionEnd,
  sessionEndedPage,
} from './dashboard-pages.js';
import { DASHBOARD_JS } from './dashboard-script.js';
import { openDemoOrders, type DemoOrders } from './demo-orders.js';
import { dashboardCsp, originsForRefusal } from './frame-ancestors.js';
import { listen, PAGE_HEADERS, sendNotFound, sendPage, sendScript, sendStylesheet } from './html-response.js';

/** The service's script for a dashboard's frame, as the package ships it (the service also serves it, /embed/ugs-embed-frame.js). */
const EMBED_FRAME_JS = readFileSync(fileURLToPath(import.meta.resolve('user-group-service/embed/frame.js')), 'utf8');

/** Fragments the page's script puts into the page: never cached (the URL holds a token), never framed or run on their own. */
const FRAGMENT_HEADERS = { ...PAGE_HEADERS, 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" };

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
  /** Where the orders come from (the server closes it): the SQLite demo dataset unless given. */
  orders?: DemoOrders;
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
 * bound as parameters (or, from PostgreSQL, the rows the database's policy
 * gives the session's group). Refused tokens get 401 and a page that says why in
 * words a viewer understands. An open orders page renews its session while
 * the viewer uses it (ugs-embed-frame.js, answered by the customer's page),
 * fetches GET /orders?token= with each new token, asks GET /session?token=
 * every sessionCheckMs, and says in place that the session ended once that is
 * refused or its viewer left: nothing reloads the frame.
 */
export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const verifier = createEmbedVerifier({
    serviceUrl: options.serviceUrl,
    apiKey: options.apiKey,
    revocationPollMs: options.revocationPollMs,
  });
  const orders = options.orders ?? openDemoOrders();
  const sessionCheckMs = options.sessionCheckMs ?? options.revocationPollMs ?? 10_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
    if (url.pathname === '/style.css') return sendStylesheet(res, DASHBOARD_CSS);
    if (url.pathname === '/dashboard.js') return sendScript(res, DASHBOARD_JS);
    if (url.pathname === '/ugs-embed-frame.js') return sendScript(res, EMBED_FRAME_JS);
    const token = url.searchParams.get('token') ?? '';
    if (url.pathname === '/session') return sendSessionState(res, token);
    if (url.pathname === '/orders') return sendOrders(res, token, url.searchParams.get('product'));
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
      return sendPage(res, 401, sessionEndedPage(endOf(error)), csp);
    }
    const csp = dashboardCsp(claims.org);
    if (claims.dsh !== undefined && claims.dsh !== DASHBOARD_NAME) {
      return sendPage(res, 403, notForThisDashboardPage(`The session was started for the dashboard "${claims.dsh}", not this one.`), csp);
    }
    try {
      sendPage(res, 200, ordersPage(claims, await orders.viewFor(claims), sessionCheckMs), dashboardCsp(claims.org, { watch: true }));
    } catch (error) {
      const unrouted = routingRefusal(error);
      if (unrouted) return sendPage(res, unrouted.status, notForThisDashboardPage(unrouted.why), csp);
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

  /**
   * What dashboard.js asks: 204 while the session holds, 401 once it ended, expired or is refused (with the words saying so,
   * an HTML fragment the page shows), 503 while that cannot be told.
   */
  async function sendSessionState(res: ServerResponse, token: string): Promise<void> {
    const refusal = await refusalOf(token);
    if (refusal === null) return void res.writeHead(204, FRAGMENT_HEADERS).end();
    res.writeHead(refusal.status, FRAGMENT_HEADERS).end(refusal.html);
  }

  /** The orders section for the page's current token and product filter (GET /orders?token=&product=), or the refusal. */
  async function sendOrders(res: ServerResponse, token: string, product: string | null): Promise<void> {
    const claims = await verifier.verify(token).catch((error: unknown) => {
      if (error instanceof EmbedTokenError) return null;
      throw error;
    });
    if (claims === null) {
      const refusal = (await refusalOf(token)) ?? { status: 401, html: sessionEndedBody('expired') };
      return void res.writeHead(refusal.status, FRAGMENT_HEADERS).end(refusal.html);
    }
    if (claims.dsh !== undefined && claims.dsh !== DASHBOARD_NAME) {
      return void res
        .writeHead(403, FRAGMENT_HEADERS)
        .end(notForThisDashboardBody(`The session was started for the dashboard "${claims.dsh}".`));
    }
    const chosen = product !== null && (PRODUCT_FILTER as readonly string[]).includes(product) ? product : null;
    try {
      const view = await orders.viewFor(claims);
      res.writeHead(200, FRAGMENT_HEADERS).end(ordersSection(claims, view, chosen));
    } catch (error) {
      const unrouted = routingRefusal(error);
      if (unrouted) return void res.writeHead(unrouted.status, FRAGMENT_HEADERS).end(notForThisDashboardBody(unrouted.why));
      if (!(error instanceof EmbedBindingError)) throw error;
      res.writeHead(403, FRAGMENT_HEADERS).end(notForThisDashboardBody(error.message));
    }
  }

  async function refusalOf(token: string): Promise<{ status: number; html: string } | null> {
    try {
      await verifier.verify(token);
      return null;
    } catch (error) {
      if (!(error instanceof EmbedTokenError)) throw error;
      if (error.code === 'revocations_unavailable') return { status: 503, html: '' };
      if (error.code === 'token_invalid') return { status: 401, html: '<h1>This dashboard cannot be shown</h1>' };
      return { status: 401, html: sessionEndedBody(endOf(error)) };
    }
  }

  const server = await listen(options.host ?? '127.0.0.1', options.port ?? 0, handle);
  return {
    url: `http://localhost:${server.port}`,
    verifier,
    async close() {
      await server.close();
      await verifier.close();
      await orders.close();
    },
  };
}

/**
 * A session the data router would not route (routed mode): no query ran. 503 while the service or the database
 * cannot be reached; 403 when the group's mapping names no data source for the orders, or one that is gone.
 */
function routingRefusal(error: unknown): { status: number; why: string } | null {
  if (!(error instanceof DataRouterError)) return null;
  if (error.code === 'service_unavailable' || error.code === 'database_unavailable')
    return { status: 503, why: `The orders cannot be reached right now (${error.code}); try again in a moment.` };
  return { status: 403, why: `This group's orders are not routed to a database (${error.code}): ${error.message}.` };
}

/** What ended a refused session, as the verifier tells it: the revocation feed's reason, or its expiry. */
function endOf(error: EmbedTokenError): SessionEnd {
  return error.code === 'token_revoked' ? { revoked: error.revocationReason } : 'expired';
}
