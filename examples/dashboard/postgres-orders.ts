import type pg from 'pg';
import { DataRouterError, withSessionClaims, type DataRouter } from 'user-group-service/embed';
import { ORDERS_SCHEMA } from './routed-databases.js';
import type { DemoOrders, OrderRow, OrdersClaims, OrdersView } from './demo-orders.js';

/**
 * The dashboard's orders from PostgreSQL (`--postgres`): the same rows as the
 * SQLite dataset, in a table whose row-level policy compares its tenant_id
 * with the session's group (postgres-orders-setup.ts). The queries below carry
 * no tenant clause at all: each runs inside withSessionClaims as a role the
 * policy binds, so the database returns the viewing group's rows only, and
 * none to a connection without claims.
 */

const ROWS = 'SELECT id, ordered_on::text AS ordered_on, region, sales_rep, customer, product, amount_cents FROM orders';
// Per tenant, summed by the dashboard: a total that names its tenant can be checked by `ugs isolation-check` (every row
// its group's or a descendant's); one sum over whatever the policy let through could not be told apart by tenant.
const TOTALS = 'SELECT tenant_id, count(*)::int AS orders, sum(amount_cents)::int AS revenue_cents FROM orders';
const BY_TENANT = 'GROUP BY tenant_id ORDER BY tenant_id';
// A view's narrowing, not the isolation: the policy already holds the group's rows, and a group's own session (its
// admin) has no sales_rep and sees them all. Written in the query, as in the SQLite mode, rather than as a
// restrictive policy, which would have to let sessions without the attribute through. ugs.viewer_prop reads the
// viewer's attribute (ugs.prop reads only what the group itself holds).
const REP_FILTER = "WHERE sales_rep = ugs.viewer_prop('sales_rep')";
const ORDER = 'ORDER BY ordered_on, id';
/** The queries of a whole group's sessions, and of sessions whose props carry a sales_rep. */
export const POSTGRES_QUERIES = {
  group: { rows: `${ROWS} ${ORDER}`, totals: `${TOTALS} ${BY_TENANT}` },
  rep: { rows: `${ROWS} ${REP_FILTER} ${ORDER}`, totals: `${TOTALS} ${REP_FILTER} ${BY_TENANT}` },
};

/** What a session's page shows, read on a connection already inside the session's claims. */
async function readView(session: Pick<pg.PoolClient, 'query'>, claims: Pick<OrdersClaims, 'props'>): Promise<OrdersView> {
  const salesRep = Object.hasOwn(claims.props, 'sales_rep') ? claims.props['sales_rep'] : undefined;
  const queries = salesRep === undefined ? POSTGRES_QUERIES.group : POSTGRES_QUERIES.rep;
  const rows = (await session.query<OrderRow>(queries.rows)).rows;
  const totals = { orders: 0, revenue_cents: 0 };
  for (const tenant of (await session.query<OrdersView['totals']>(queries.totals)).rows) {
    totals.orders += tenant.orders;
    totals.revenue_cents += tenant.revenue_cents;
  }
  return { salesRep: salesRep === undefined ? null : String(salesRep), region: rows[0]?.region ?? null, rows, totals };
}

/** The orders source over `pool`, connected as the dashboard's role; close() ends the pool. */
export function openPostgresOrders(pool: pg.Pool): DemoOrders {
  return {
    async viewFor(claims) {
      const client = await pool.connect();
      try {
        return await withSessionClaims(client, claims, (session) => readView(session, claims));
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * The orders source of the routed mode: each session's queries run through the data router, on the database its
 * group's mapping names for `orders` (acme's, globex's, or the shared one), inside its claims. The dashboard never
 * picks a connection itself; a session whose mapping names no data source gets the router's DataRouterError.
 */
export function openRoutedOrders(router: DataRouter): DemoOrders {
  return {
    async viewFor(claims) {
      const { env, map } = claims;
      if (env === undefined || map === undefined) throw new DataRouterError('unknown_schema', 'the session carries no mapping to route by');
      return router.run({ ...claims, env, map }, ORDERS_SCHEMA, (session) => readView(session, claims));
    },
    close: () => router.close(),
  };
}
