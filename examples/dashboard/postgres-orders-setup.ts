import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresPolicySql, tablePolicySql } from 'user-group-service/embed';
import { demoOrderRows, REGIONS } from './demo-orders.js';

/**
 * What the example does as the database's admin before the dashboard runs:
 * installs the `ugs` functions, (re)creates the orders table with the demo
 * rows, each region's owned by one group, puts the table under the policy,
 * and makes the role the dashboard connects as, which may only read it and
 * which the policy binds (neither superuser nor BYPASSRLS, not the table's
 * owner).
 */

/** Whose orders are whose in PostgreSQL mode: each region's 12 belong to one group (tenant_id). */
export const REGION_TENANTS: Record<(typeof REGIONS)[number], string> = { eu: 'acme', us: 'globex', apac: 'initech' };

/**
 * Whose an order is: its region's group, except that initech's sub-group initech-labs owns cleo's apac orders
 * (in the routed mode the two share a database, kept apart by the row policy).
 */
export function tenantOf(row: { region: string; sales_rep: string }): string {
  const tenant = REGION_TENANTS[row.region as keyof typeof REGION_TENANTS];
  return tenant === 'initech' && row.sales_rep === 'cleo' ? 'initech-labs' : tenant;
}

/** The role the dashboard queries as, unless told otherwise. */
export const DASHBOARD_ROLE = 'ugs_example_dashboard';

/** Marks the table as the example's: it drops and recreates that one on every start, and refuses to touch any other. */
const TABLE_COMMENT = 'user-group-service example dashboard: demo orders, recreated on every start';

const CREATE_ORDERS = `CREATE TABLE orders (
  id int PRIMARY KEY,
  tenant_id text NOT NULL,
  ordered_on date NOT NULL,
  region text NOT NULL,
  sales_rep text NOT NULL,
  customer text NOT NULL,
  product text NOT NULL,
  amount_cents int NOT NULL
);
-- Every query of the dashboard's role is filtered on tenant_id by the policy.
CREATE INDEX orders_tenant_id_idx ON orders (tenant_id);
COMMENT ON TABLE orders IS '${TABLE_COMMENT}';`;

export interface PostgresOrdersSetup {
  /** The dashboard's role. */
  role: string;
  /** The database's URL as that role (its password, new on every setup, is in it: never log it). */
  url: string;
}

export interface PostgresOrdersOptions {
  /** The dashboard's role (default DASHBOARD_ROLE). */
  role?: string;
  /** Only these groups' orders (default: every region's). */
  tenants?: readonly string[];
  /** The role's password, hex (default: a new random one). */
  password?: string;
  /**
   * A policy admitting the group's subtree (`ugs.subtree()`: the group and, in sessions minted with
   * include_descendants, its descendants) rather than the group alone.
   */
  subtree?: boolean;
}

/** Sets up the example's orders in the database at `adminUrl` (a role that may create tables and roles); safe to run again. */
export async function setUpPostgresOrders(adminUrl: string, options: PostgresOrdersOptions = {}): Promise<PostgresOrdersSetup> {
  const role = options.role ?? DASHBOARD_ROLE;
  if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new TypeError(`"${role}" is not a plain role name`);
  // Roles belong to the whole server: a setup of several databases gives the role one password for all of them.
  const password = options.password ?? randomBytes(18).toString('hex');
  if (!/^[0-9a-f]+$/.test(password)) throw new TypeError('the role password is hex, so it needs no quoting');
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    const { rows: tables } = await admin.query<{ comment: string | null }>(
      "SELECT obj_description(to_regclass('orders'), 'pg_class') AS comment WHERE to_regclass('orders') IS NOT NULL",
    );
    if (tables.length > 0 && tables[0]!.comment !== TABLE_COMMENT) {
      throw new Error('the database already has an orders table that is not the example’s; give the example a database of its own');
    }
    const { rows: roles } = await admin.query<{ rolsuper: boolean; rolbypassrls: boolean }>(
      'SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1',
      [role],
    );
    if (roles[0]?.rolsuper || roles[0]?.rolbypassrls) {
      throw new Error(`the role ${role} is a superuser or has BYPASSRLS, which row-level policies do not bind; drop it or name another`);
    }
    await admin.query('BEGIN');
    await admin.query(postgresPolicySql());
    await admin.query(`DROP TABLE IF EXISTS orders; ${CREATE_ORDERS}`);
    for (const row of demoOrderRows()) {
      if (options.tenants !== undefined && !options.tenants.includes(tenantOf(row))) continue;
      await admin.query('INSERT INTO orders VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
        row.id,
        tenantOf(row),
        row.ordered_on,
        row.region,
        row.sales_rep,
        row.customer,
        row.product,
        row.amount_cents,
      ]);
    }
    // The password is hex, so it needs no quoting beyond the literal's.
    await admin.query(`${roles.length === 0 ? 'CREATE' : 'ALTER'} ROLE ${role} LOGIN PASSWORD '${password}'`);
    await admin.query(`GRANT SELECT ON orders TO ${role}`);
    await admin.query(tablePolicySql({ table: 'orders', column: 'tenant_id', subtree: options.subtree === true }));
    await admin.query('COMMIT');
  } catch (error) {
    await admin.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return { role, url: url.toString() };
}
