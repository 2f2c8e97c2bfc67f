import type { EmbedClaims } from 'user-group-service/embed';
import type { OrdersView } from './demo-orders.js';
import { escapeHtml, htmlPage } from './html-response.js';

/** The dashboard's pages: the orders table, and what a refused session sees instead. */

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const formatCents = (cents: number) => money.format(cents / 100);

/** The products a viewer can narrow the table to: a filter whose choice stays while the frame renews its session. */
export const PRODUCT_FILTER = ['Starter plan', 'Team plan', 'Enterprise plan', 'Extra seats', 'Support pack'] as const;

/**
 * The orders page. Its scripts (dashboard.js, with the service's ugs-embed-frame.js) keep the session alive while the
 * viewer uses it, fetch the orders section again with each new token or filter (GET /orders), and show that the
 * session ended, in place: at its end when the viewer left, or once GET /session refuses it (checked every sessionCheckMs).
 */
export function ordersPage(claims: EmbedClaims, view: OrdersView, sessionCheckMs: number): string {
  const options = PRODUCT_FILTER.map((product) => `<option>${escapeHtml(product)}</option>`).join('');
  return htmlPage(
    `Orders: ${claims.name}`,
    `<section id="orders" aria-live="polite">
${ordersSection(claims, view, null)}
</section>
<p><label for="product">Product</label> <select id="product"><option value="">All products</option>${options}</select></p>
<template id="session-idle">${sessionEndedBody('idle')}</template>
<script src="/ugs-embed-frame.js"></script>
<script src="/dashboard.js" data-check-ms="${sessionCheckMs}" data-origins="${escapeHtml(JSON.stringify(claims.org ?? []))}"></script>`,
  );
}

/** What GET /orders answers and the page shows: the heading, who is viewing, and the table, of one product when `product` is set. */
export function ordersSection(claims: EmbedClaims, view: OrdersView, product: string | null): string {
  const rep = view.salesRep === null ? '' : `of sales rep ${escapeHtml(view.salesRep)} `;
  // PostgreSQL mode knows the region from the rows alone: a group with none is named instead.
  const region = view.region === null ? null : escapeHtml(view.region);
  const scope = region === null ? `${rep}of ${escapeHtml(claims.name)}` : `${rep}in ${region}`;
  const viewer = claims.vid === undefined ? '' : `, viewer <strong>${escapeHtml(claims.vid)}</strong>`;
  const shown = product === null ? view.rows : view.rows.filter((row) => row.product === product);
  const rows = shown
    .map(
      (row) => `<tr>
<th scope="row">${row.id}</th>
<td>${escapeHtml(row.ordered_on)}</td>
<td>${escapeHtml(row.region)}</td>
<td>${escapeHtml(row.sales_rep)}</td>
<td>${escapeHtml(row.customer)}</td>
<td>${escapeHtml(row.product)}</td>
<td class="amount">${formatCents(row.amount_cents)}</td>
</tr>`,
    )
    .join('\n');
  const of = product === null ? '' : ` of ${escapeHtml(product)}`;
  const body = rows === '' ? `<tr><td colspan="7">No orders${of} ${scope}.</td></tr>` : rows;
  return `<h1>Orders ${scope}</h1>
<p>Viewing as <strong>${escapeHtml(claims.name)}</strong> (user group ${escapeHtml(claims.sub)}${viewer}).
${view.totals.orders} orders, ${formatCents(view.totals.revenue_cents)} in total.</p>
<table>
<caption>Orders${of} ${rep}${region === null ? `of ${escapeHtml(claims.name)}` : `in region ${region}`}, oldest first</caption>
<thead>
<tr><th scope="col">Order</th><th scope="col">Date</th><th scope="col">Region</th><th scope="col">Sales rep</th><th scope="col">Customer</th><th scope="col">Product</th><th scope="col" class="amount">Amount</th></tr>
</thead>
<tbody>
${body}
</tbody>
</table>`;
}

/**
 * What ended a session: revoked, with the revocation feed's reason (EmbedTokenError.revocationReason), expired, or left
 * unused for a token's lifetime (the frame's own timer).
 */
export type SessionEnd = { revoked: string | undefined } | 'expired' | 'idle';

/** The revocation feed's reasons (GET /api/embed_sessions/revocations), each in the viewer's words. */
const REVOKED_BECAUSE: Record<string, string> = {
  session_revoked: 'It was ended on its own (this one session was revoked).',
  token_rotated: 'Its group’s token was rotated, which ends every session of the group.',
  user_group_deleted: 'Its group was deleted.',
  user_group_renamed: 'Its group was renamed.',
  viewer_revoked: 'Every session of its viewer was ended.',
};

/** Why a session ended, as the page says it: the one cause that happened. */
export function sessionEndedBody(end: SessionEnd): string {
  const why =
    end === 'expired'
      ? 'It expired.'
      : end === 'idle'
        ? 'It expired after a while without use.'
        : // A reason a newer service added, or none: still ended, the cause unnamed.
          (REVOKED_BECAUSE[end.revoked ?? ''] ?? 'It was ended.');
  return `<h1>This session has ended</h1>\n<p role="status">${why} Reload the page that showed this dashboard to start a new session.</p>`;
}

/** A revoked or expired session: the viewer reloads the page that embeds the dashboard, whose backend mints a new one. */
export function sessionEndedPage(end: SessionEnd): string {
  return htmlPage('Session ended', sessionEndedBody(end));
}

/** The verifier cannot tell whether the session was revoked (its revocation feed is unreachable or refuses its key): the server's log says
 * which. */
export function revocationsUnavailablePage(): string {
  return htmlPage(
    'Dashboard unavailable',
    '<h1>This dashboard cannot check sessions right now</h1>\n<p role="alert">It cannot reach the user group service to learn which sessions were ended. Its operator has been told why in its log.</p>',
  );
}

/** A missing, malformed, tampered, or otherwise unacceptable token; what was wrong stays in the server's log. */
export function refusedPage(): string {
  return htmlPage(
    'Dashboard refused',
    '<h1>This dashboard cannot be shown</h1>\n<p role="alert">The link does not carry a valid session. Open the dashboard from the page that embeds it.</p>',
  );
}

/** A valid session this dashboard cannot serve: minted for another dashboard, or the group lacks a property its queries need. */
export function notForThisDashboardPage(why: string): string {
  return htmlPage('Dashboard unavailable', notForThisDashboardBody(why));
}

export function notForThisDashboardBody(why: string): string {
  return `<h1>This dashboard is not available for this session</h1>\n<p role="alert">${escapeHtml(why)}</p>`;
}

export const DASHBOARD_CSS = `body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; background: #fff; }
h1 { font-size: 1.4rem; margin: 0 0 0.5rem; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding: 0.5rem 0; }
select { font-size: 1rem; }
th, td { border-bottom: 1px solid #d0d0d0; padding: 0.35rem 0.6rem; text-align: left; }
thead th { background: #f0f3f7; }
.amount { text-align: right; font-variant-numeric: tabular-nums; }
`;
