import type { IncomingMessage, ServerResponse } from 'node:http';
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { DASHBOARD_NAME } from './dashboard-server.js';
import { mintFailure } from './mint-failure.js';
import { escapeHtml, htmlPage, listen, sendNotFound, sendPage, sendStylesheet } from './html-response.js';

export interface CustomerAppOptions {
  /** The user group service. */
  serviceUrl: string;
  /** A read-write or embed API key: it mints the sessions. It stays in this backend. */
  apiKey: string;
  /** Where browsers reach the dashboard, e.g. http://localhost:4100. */
  dashboardUrl: string;
  /** How long each session lives, in seconds (the service's default: 600). */
  sessionSeconds?: number;
  port?: number;
  host?: string;
}

export interface CustomerApp {
  /** This app's origin, e.g. http://localhost:4000: the only one its sessions let frame the dashboard. */
  readonly url: string;
  close(): Promise<void>;
}

const CUSTOMER_CSS = `body { font-family: system-ui, sans-serif; margin: 1.5rem; }
iframe { width: 100%; height: 36rem; border: 1px solid #c8c8c8; }
label, input, button { font-size: 1rem; }
`;

/**
 * The customer's app, the page that embeds the dashboard: GET /?group=<id>.
 * Its backend mints a short-lived embed session for the group with its API
 * key (typed client) and hands the browser only the session token, in the
 * iframe's URL. A real app takes the group from its own login session, never
 * from the URL: here the URL stands in for "who is logged in".
 */
export async function startCustomerApp(options: CustomerAppOptions): Promise<CustomerApp> {
  const client = new UserGroupClient({ baseUrl: options.serviceUrl, apiKey: options.apiKey });
  const dashboard = new URL(options.dashboardUrl);
  let origin = '';
  const csp = (): string =>
    `default-src 'none'; style-src 'self'; frame-src ${dashboard.origin}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
    if (url.pathname === '/style.css') return sendStylesheet(res, CUSTOMER_CSS);
    if (url.pathname !== '/') return sendNotFound(res);
    const host = req.headers.host?.toLowerCase();
    // Misdirected: the sessions name this app's origin, so on another host the dashboard's frame-ancestors would blank the frame.
    if (host !== undefined && host !== new URL(origin).host)
      return sendPage(res, 421, wrongHostPage(host, `${origin}${url.pathname}${url.search}`), csp());
    const group = url.searchParams.get('group');
    if (!group) return sendPage(res, 200, pickGroupPage(), csp());
    let token: string;
    try {
      ({ token } = await client.mintEmbedSession({
        user_group_id: group,
        dashboard: DASHBOARD_NAME,
        origins: [origin],
        ...(options.sessionSeconds === undefined ? {} : { expires_in: options.sessionSeconds }),
      }));
    } catch (error) {
      if (!(error instanceof UserGroupServiceError)) throw error;
      console.error(`customer app: minting a session for ${JSON.stringify(group)} failed: ${error.status} ${error.code}: ${error.message}`);
      const { status, why } = mintFailure(group, error);
      return sendPage(
        res,
        status,
        htmlPage('No dashboard', `<h1>No dashboard for ${escapeHtml(group)}</h1>\n<p role="alert">${escapeHtml(why)}</p>`),
        csp(),
      );
    }
    const src = new URL('/', dashboard);
    src.searchParams.set('token', token);
    const body = `<h1>Your orders</h1>
<p>Signed in as user group <strong>${escapeHtml(group)}</strong>. <a href="/">Switch group</a></p>
<iframe title="Orders dashboard" src="${escapeHtml(src.href)}"></iframe>`;
    sendPage(res, 200, htmlPage(`Orders: ${group}`, body), csp());
  }

  const server = await listen(options.host ?? '127.0.0.1', options.port ?? 0, handle);
  origin = `http://localhost:${server.port}`;
  return { url: origin, close: () => server.close() };
}

/** The app opened under another host name (127.0.0.1, the machine's name) than the origin its sessions allow to frame the dashboard. */
function wrongHostPage(host: string, here: string): string {
  const origin = new URL(here).origin;
  return htmlPage(
    'Open this app as localhost',
    `<h1>Open this app at ${escapeHtml(origin)}</h1>
<p role="alert">This page was opened as ${escapeHtml(host)}, but the dashboard sessions this app starts let only the origin
${escapeHtml(origin)} frame the dashboard (its <code>frame-ancestors</code>), so here the browser would show a broken frame instead.
Open <a href="${escapeHtml(here)}">${escapeHtml(here)}</a>.</p>`,
  );
}

function pickGroupPage(): string {
  return htmlPage(
    'Open a dashboard',
    `<h1>Open the orders dashboard</h1>
<form method="get" action="/">
<label for="group">User group id</label>
<input id="group" name="group" required autocomplete="off">
<button type="submit">Open</button>
</form>`,
  );
}
