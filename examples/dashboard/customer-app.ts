import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { DASHBOARD_NAME } from './dashboard-server.js';
import { DEMO_VIEWERS, endViewerSessions, isDemoViewer } from './demo-viewers.js';
import { mintFailure } from './mint-failure.js';
import { escapeHtml, htmlPage, listen, sendNotFound, sendPage, sendScript, sendStylesheet } from './html-response.js';
import { CUSTOMER_APP_JS, readRenewal, sendRenewal } from './renew-endpoint.js';

export interface CustomerAppOptions {
  /** The user group service. */
  serviceUrl: string;
  /** A read-write or embed API key: it mints the sessions. It stays in this backend. */
  apiKey: string;
  /** Where browsers reach the dashboard, e.g. http://localhost:4100. */
  dashboardUrl: string;
  /** How long each session lives, in seconds (the service's default: 600). */
  sessionSeconds?: number;
  /** Mint with include_descendants, so a policy admitting the group's subtree (the --postgres mode's) shows its sub-groups' rows too. */
  includeDescendants?: boolean;
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
label, input, select, button { font-size: 1rem; }
nav, form.end { display: inline-block; margin: 0 1rem 0.75rem 0; }
`;
const END_SESSIONS = /^\/viewers\/([^/]+)\/end-sessions$/;
/** The service's script for the customer's page, as the package ships it (the service also serves it, /embed/ugs-embed-page.js). */
const EMBED_PAGE_JS = readFileSync(fileURLToPath(import.meta.resolve('user-group-service/embed/page.js')), 'utf8');

/**
 * The customer's app, the page that embeds the dashboard: GET /?group=<id>,
 * with &viewer=<id> to view as one of its people (DEMO_VIEWERS) rather than as
 * the group's admin. Its backend mints a short-lived embed session for the
 * group (and the viewer, with their attributes) with its API key (typed
 * client) and hands the browser only the session token, in the iframe's URL.
 * The page renews it while the viewer uses the dashboard (ugs-embed-page.js
 * and app.js): POST /renew, whose backend calls renew with the API key.
 * POST /viewers/<id>/end-sessions ends every session of that viewer. A real
 * app takes the group and the person from its own login session, never from
 * the URL: here the URL stands in for "who is logged in".
 */
export async function startCustomerApp(options: CustomerAppOptions): Promise<CustomerApp> {
  const client = new UserGroupClient({ baseUrl: options.serviceUrl, apiKey: options.apiKey });
  const dashboard = new URL(options.dashboardUrl);
  let origin = '';
  const csp = (): string =>
    `default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; frame-src ${dashboard.origin}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const ending = END_SESSIONS.exec(url.pathname);
    if (ending !== null)
      return req.method === 'POST' ? endSessions(req, res, ending[1]!, url) : void res.writeHead(405, { allow: 'POST' }).end();
    if (url.pathname === '/renew') {
      return req.method === 'POST'
        ? sendRenewal(res, await readRenewal(req), client, options.sessionSeconds)
        : void res.writeHead(405, { allow: 'POST' }).end();
    }
    if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
    if (url.pathname === '/style.css') return sendStylesheet(res, CUSTOMER_CSS);
    if (url.pathname === '/ugs-embed-page.js') return sendScript(res, EMBED_PAGE_JS);
    if (url.pathname === '/app.js') return sendScript(res, CUSTOMER_APP_JS);
    if (url.pathname !== '/') return sendNotFound(res);
    const host = req.headers.host?.toLowerCase();
    // Misdirected: the sessions name this app's origin, so on another host the dashboard's frame-ancestors would blank the frame.
    if (host !== undefined && host !== new URL(origin).host)
      return sendPage(res, 421, wrongHostPage(host, `${origin}${url.pathname}${url.search}`), csp());
    const group = url.searchParams.get('group');
    if (!group) return sendPage(res, 200, pickGroupPage(), csp());
    const viewer = url.searchParams.get('viewer') || null;
    if (viewer !== null && !isDemoViewer(viewer)) {
      const body = `<h1>No viewer ${escapeHtml(viewer)}</h1>\n<p role="alert">This app's people are ${demoViewerNames()}.</p>`;
      return sendPage(res, 404, htmlPage('No such viewer', body), csp());
    }
    let token: string;
    try {
      ({ token } = await client.mintEmbedSession({
        user_group_id: group,
        dashboard: DASHBOARD_NAME,
        origins: [origin],
        ...(viewer === null ? {} : { viewer: { id: viewer, attributes: { ...DEMO_VIEWERS[viewer] } } }),
        ...(options.sessionSeconds === undefined ? {} : { expires_in: options.sessionSeconds }),
        ...(options.includeDescendants ? { include_descendants: true } : {}),
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
    const who = viewer === null ? 'the group’s admin (no viewer)' : `viewer <strong>${escapeHtml(viewer)}</strong>`;
    const body = `<h1>Your orders</h1>
<p>Signed in as user group <strong>${escapeHtml(group)}</strong>, as ${who}. <a href="/">Switch group</a></p>
${viewerControls(group)}
<iframe title="Orders dashboard" src="${escapeHtml(src.href)}"></iframe>
<script src="/ugs-embed-page.js"></script>
<script src="/app.js"></script>`;
    sendPage(res, 200, htmlPage(`Orders: ${group}`, body), csp());
  }

  /** Offboarding: the viewer's open dashboards, in every group, say that the session ended. */
  async function endSessions(req: IncomingMessage, res: ServerResponse, encodedId: string, url: URL): Promise<void> {
    // A form of this app's own pages only, so another site cannot end sessions here. The browser says where a POST comes from in
    // Sec-Fetch-Site (its Origin is "null" here: the pages send Referrer-Policy no-referrer).
    if (req.headers['sec-fetch-site'] !== 'same-origin') {
      const body = `<h1>Not ended</h1>\n<p role="alert">Sessions are ended from this app's own pages (${escapeHtml(origin)}) only.</p>`;
      return sendPage(res, 403, htmlPage('Not ended', body), csp());
    }
    const viewer = decodedOrNull(encodedId);
    if (viewer === null || !isDemoViewer(viewer)) return sendNotFound(res);
    const group = url.searchParams.get('group');
    const back = group ? `<p><a href="/?group=${encodeURIComponent(group)}">Back to ${escapeHtml(group)}</a></p>` : '';
    try {
      const { revoked_at } = await endViewerSessions(options.serviceUrl, options.apiKey, viewer);
      const body = `<h1>Ended ${escapeHtml(viewer)}’s sessions</h1>
<p role="status">Every session of viewer ${escapeHtml(viewer)} minted up to ${escapeHtml(revoked_at)} has ended, in every group: an open
dashboard of theirs says so within seconds. A session started now works again.</p>
${back}`;
      sendPage(res, 200, htmlPage(`Ended: ${viewer}`, body), csp());
    } catch (error) {
      if (!(error instanceof UserGroupServiceError)) throw error;
      console.error(
        `customer app: ending the sessions of ${JSON.stringify(viewer)} failed: ${error.status} ${error.code}: ${error.message}`,
      );
      const status = error.code === 'rate_limited' || error.code === 'unavailable' ? 503 : 502;
      const why = `The user group service did not end them (${error.status} ${error.code}): ${error.message}`;
      sendPage(
        res,
        status,
        htmlPage('Not ended', `<h1>${escapeHtml(viewer)}’s sessions were not ended</h1>\n<p role="alert">${escapeHtml(why)}</p>${back}`),
        csp(),
      );
    }
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
<label for="viewer">as</label>
<select id="viewer" name="viewer">
<option value="">the group’s admin (no viewer)</option>
${Object.keys(DEMO_VIEWERS)
  .map((id) => `<option value="${escapeHtml(id)}">viewer ${escapeHtml(id)}</option>`)
  .join('\n')}
</select>
<button type="submit">Open</button>
</form>`,
  );
}

function demoViewerNames(): string {
  return Object.keys(DEMO_VIEWERS)
    .map((id) => escapeHtml(id))
    .join(' and ');
}

/** Links to view the group as each of its people or as its admin, and a button per person that ends their sessions. */
function viewerControls(group: string): string {
  const at = (viewer: string | null) =>
    escapeHtml(`/?${new URLSearchParams({ group, ...(viewer === null ? {} : { viewer }) }).toString()}`);
  const views = [
    `<a href="${at(null)}">the group’s admin</a>`,
    ...Object.keys(DEMO_VIEWERS).map((id) => `<a href="${at(id)}">${escapeHtml(id)}</a>`),
  ];
  const ends = Object.keys(DEMO_VIEWERS).map(
    (id) =>
      `<form class="end" method="post" action="/viewers/${encodeURIComponent(id)}/end-sessions?group=${escapeHtml(encodeURIComponent(group))}">` +
      `<button type="submit">End ${escapeHtml(id)}’s sessions</button></form>`,
  );
  return `<nav aria-label="View as">View as: ${views.join(' · ')}</nav>\n${ends.join('\n')}`;
}

function decodedOrNull(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
