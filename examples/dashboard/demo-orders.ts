import { bindProperties, type BindableClaims, type EmbedClaims, type PolicyClaims } from 'user-group-service/embed';
// The repository's loader picks the better-sqlite3 build that runs on this Node; a dashboard of your
// own imports better-sqlite3 (or its database's driver) directly.
import SqliteDatabase from 'better-sqlite3';

/**
 * The demo dataset, orders across regions, each won by a sales rep, and the
 * dashboard's orders source by default: the dataset in an in-memory SQLite
 * database, and the dashboard's queries. (postgres-orders.ts is the other
 * source: the same rows in PostgreSQL, isolated by row-level security.) The queries are
 * written the way a dashboard author writes them, with {{ region }} and
 * {{ sales_rep }}; bindProperties turns each into parameterised SQL with the
 * session's values, so a group sees its region's rows, a viewer whose
 * attributes carry a sales_rep only that rep's among them, and nothing
 * written in properties or attributes can change the SQL.
 */

export const REGIONS = ['eu', 'us', 'apac'] as const;
/** Every region has orders of each rep: the demo's viewers "ana" and "ben", and "cleo", whom no demo viewer is. */
export const SALES_REPS = ['ana', 'ben', 'cleo'] as const;
const CUSTOMERS: Record<(typeof REGIONS)[number], string[]> = {
  eu: ['Brightwell GmbH', 'Nordlys AS', 'Maison Caron', 'Vela Logistica'],
  us: ['Redwood Supply', 'Lakeshore Foods', 'Mesa Outfitters', 'Harbor & Pine'],
  apac: ['Sakura Denki', 'Koala Freight', 'Lotus Textiles', 'Kiwi Orchards'],
};
const PRODUCTS = ['Starter plan', 'Team plan', 'Enterprise plan', 'Extra seats', 'Support pack'];

const ROWS = 'SELECT id, ordered_on, region, sales_rep, customer, product, amount_cents FROM orders';
const TOTALS = 'SELECT count(*) AS orders, coalesce(sum(amount_cents), 0) AS revenue_cents FROM orders';
const GROUP_FILTER = 'WHERE region = {{ region }}';
const REP_FILTER = `${GROUP_FILTER} AND sales_rep = {{ sales_rep }}`;
const ORDER = 'ORDER BY ordered_on, id';
/** The queries of a whole group's sessions, and of sessions whose props carry a sales_rep (a viewer's attribute, say). */
const QUERIES = {
  group: { rows: `${ROWS} ${GROUP_FILTER} ${ORDER}`, totals: `${TOTALS} ${GROUP_FILTER}` },
  rep: { rows: `${ROWS} ${REP_FILTER} ${ORDER}`, totals: `${TOTALS} ${REP_FILTER}` },
};

export interface OrderRow {
  id: number;
  ordered_on: string;
  region: string;
  sales_rep: string;
  customer: string;
  product: string;
  amount_cents: number;
}

export interface OrdersView {
  /** The rep the rows are narrowed to, when the session's props carry one; null: all of the group's orders. */
  salesRep: string | null;
  /** The region the rows are of; null when that is not known (no rows in PostgreSQL mode). */
  region: string | null;
  rows: OrderRow[];
  totals: { orders: number; revenue_cents: number };
}

/** What an orders source is handed: a verified session's claims (EmbedClaims), enough of them to bind properties or set a policy's. */
// `env` and `map` route a session in the routed mode (postgres-orders.ts): a verified token always has them.
export type OrdersClaims = BindableClaims & PolicyClaims & Partial<Pick<EmbedClaims, 'env' | 'map'>>;

/** Where the dashboard's orders come from: SQLite here (the default), PostgreSQL (postgres-orders.ts) with `--postgres`. */
export interface DemoOrders {
  /** The dashboard's queries for the session's claims; rejects with EmbedBindingError when the group lacks a variable they use. */
  viewFor(claims: OrdersClaims): Promise<OrdersView>;
  close(): Promise<void>;
}

/** 36 orders, 12 per region, 4 of each rep in every region, the same on every start. */
export function demoOrderRows(): OrderRow[] {
  const rows: OrderRow[] = [];
  for (let id = 1; id <= 36; id++) {
    const region = REGIONS[id % REGIONS.length]!;
    rows.push({
      id,
      ordered_on: new Date(Date.UTC(2026, 0, 1 + id * 5)).toISOString().slice(0, 10),
      region,
      sales_rep: SALES_REPS[Math.floor(id / REGIONS.length) % SALES_REPS.length]!,
      customer: CUSTOMERS[region][id % 4]!,
      product: PRODUCTS[id % PRODUCTS.length]!,
      amount_cents: 4_900 + ((id * 7_919) % 95_000),
    });
  }
  return rows;
}

/** The dashboard's orders in an in-memory SQLite database, each group's region bound into its queries. */
export function openDemoOrders(): DemoOrders {
  const db = new SqliteDatabase(':memory:');
  db.exec(`CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    ordered_on TEXT NOT NULL,
    region TEXT NOT NULL,
    sales_rep TEXT NOT NULL,
    customer TEXT NOT NULL,
    product TEXT NOT NULL,
    amount_cents INTEGER NOT NULL
  )`);
  const insert = db.prepare(
    'INSERT INTO orders (id, ordered_on, region, sales_rep, customer, product, amount_cents) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (const row of demoOrderRows()) {
      insert.run(row.id, row.ordered_on, row.region, row.sales_rep, row.customer, row.product, row.amount_cents);
    }
  })();
  const run = <T>(sql: string, claims: BindableClaims, one: boolean): T => {
    const { text, values } = bindProperties(sql, claims, 'sqlite');
    const statement = db.prepare(text);
    return (one ? statement.get(...values) : statement.all(...values)) as T;
  };
  return {
    async viewFor(claims) {
      // The narrower queries only where the session names a rep; their {{ sales_rep }} is bound like any property, so a rep's
      // name is a value and never SQL. A session without one is the group's own (its admin, say): the whole region.
      const salesRep = Object.hasOwn(claims.props, 'sales_rep') ? claims.props['sales_rep'] : undefined;
      const queries = salesRep === undefined ? QUERIES.group : QUERIES.rep;
      return {
        salesRep: salesRep === undefined ? null : String(salesRep),
        region: String(claims.props['region']),
        rows: run<OrderRow[]>(queries.rows, claims, false),
        totals: run<OrdersView['totals']>(queries.totals, claims, true),
      };
    },
    async close() {
      db.close();
    },
  };
}
