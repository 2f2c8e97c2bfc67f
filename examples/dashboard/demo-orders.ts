import { bindProperties, type BindableClaims } from 'user-group-service/embed';
// The repository's loader picks the better-sqlite3 build that runs on this Node; a dashboard of your
// own imports better-sqlite3 (or its database's driver) directly.
import SqliteDatabase from 'better-sqlite3';

/**
 * The demo dataset, orders across regions, in an in-memory SQLite database,
 * and the dashboard's queries. The queries are written the way a dashboard
 * author writes them, with {{ region }}; bindProperties turns each into
 * parameterised SQL with the viewing group's value, so a group sees its
 * region's rows and nothing it writes in its properties can change the SQL.
 */

export const REGIONS = ['eu', 'us', 'apac'] as const;
const CUSTOMERS: Record<(typeof REGIONS)[number], string[]> = {
  eu: ['Brightwell GmbH', 'Nordlys AS', 'Maison Caron', 'Vela Logistica'],
  us: ['Redwood Supply', 'Lakeshore Foods', 'Mesa Outfitters', 'Harbor & Pine'],
  apac: ['Sakura Denki', 'Koala Freight', 'Lotus Textiles', 'Kiwi Orchards'],
};
const PRODUCTS = ['Starter plan', 'Team plan', 'Enterprise plan', 'Extra seats', 'Support pack'];

const ROWS_QUERY = `
  SELECT id, ordered_on, region, customer, product, amount_cents
  FROM orders
  WHERE region = {{ region }}
  ORDER BY ordered_on, id`;
const TOTALS_QUERY = `
  SELECT count(*) AS orders, coalesce(sum(amount_cents), 0) AS revenue_cents
  FROM orders
  WHERE region = {{ region }}`;

export interface OrderRow {
  id: number;
  ordered_on: string;
  region: string;
  customer: string;
  product: string;
  amount_cents: number;
}

export interface OrdersView {
  rows: OrderRow[];
  totals: { orders: number; revenue_cents: number };
}

export interface DemoOrders {
  /** The dashboard's queries for the session's claims; throws EmbedBindingError when the group lacks a variable they use. */
  viewFor(claims: BindableClaims): OrdersView;
  close(): void;
}

export function openDemoOrders(): DemoOrders {
  const db = new SqliteDatabase(':memory:');
  db.exec(`CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    ordered_on TEXT NOT NULL,
    region TEXT NOT NULL,
    customer TEXT NOT NULL,
    product TEXT NOT NULL,
    amount_cents INTEGER NOT NULL
  )`);
  const insert = db.prepare('INSERT INTO orders (id, ordered_on, region, customer, product, amount_cents) VALUES (?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    // 36 orders, 12 per region, the same on every start.
    for (let id = 1; id <= 36; id++) {
      const region = REGIONS[id % REGIONS.length]!;
      const orderedOn = new Date(Date.UTC(2026, 0, 1 + id * 5)).toISOString().slice(0, 10);
      insert.run(id, orderedOn, region, CUSTOMERS[region][id % 4]!, PRODUCTS[id % PRODUCTS.length]!, 4_900 + ((id * 7_919) % 95_000));
    }
  })();
  const run = <T>(sql: string, claims: BindableClaims, one: boolean): T => {
    const { text, values } = bindProperties(sql, claims, 'sqlite');
    const statement = db.prepare(text);
    return (one ? statement.get(...values) : statement.all(...values)) as T;
  };
  return {
    viewFor(claims) {
      return { rows: run<OrderRow[]>(ROWS_QUERY, claims, false), totals: run<OrdersView['totals']>(TOTALS_QUERY, claims, true) };
    },
    close() {
      db.close();
    },
  };
}
