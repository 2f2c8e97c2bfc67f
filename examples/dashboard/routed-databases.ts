import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DASHBOARD_ROLE, setUpPostgresOrders } from './postgres-orders-setup.js';

/**
 * The `--postgres` mode's data: three databases on one server, each a data source of the service. acme and
 * globex each have a database of their own (database per tenant); initech and its sub-group initech-labs share
 * one, where the row policy keeps them apart: it admits a group's subtree, so initech's sessions (minted with
 * include_descendants) see initech-labs' orders too, and initech-labs' see only its own. Every group's mapping
 * names its data source for the schema `orders`, and the dashboard's data router takes each session to the
 * database its mapping names.
 */

/** The schema the dashboard's queries read: the key of every group's mapping. */
export const ORDERS_SCHEMA = 'orders';

export interface RoutedDatabase {
  /** The data source's id in the service: what the groups' mappings name. */
  dataSourceId: string;
  name: string;
  database: string;
  /** The groups whose orders it holds. */
  tenants: readonly string[];
}

export const ROUTED_DATABASES: readonly RoutedDatabase[] = [
  { dataSourceId: 'example-acme', name: 'Acme (own database)', database: 'ugs_example_acme', tenants: ['acme'] },
  { dataSourceId: 'example-globex', name: 'Globex (own database)', database: 'ugs_example_globex', tenants: ['globex'] },
  {
    dataSourceId: 'example-shared',
    name: 'Shared (row policies)',
    database: 'ugs_example_shared',
    tenants: ['initech', 'initech-labs'],
  },
];

/** Which group maps `orders` to which data source; initech-labs, under initech, inherits initech's. */
export const GROUP_DATA_SOURCES: Readonly<Record<string, string>> = {
  acme: 'example-acme',
  globex: 'example-globex',
  initech: 'example-shared',
};

export interface RoutedSetup {
  role: string;
  /** The role's password, the same in every database (roles belong to the server): never log it. */
  password: string;
  host: string;
  port: number;
  /** `prefix` + each database's name, as created. */
  databases: (RoutedDatabase & { database: string })[];
}

/**
 * Creates the databases that are missing and sets each one's orders up (postgres-orders-setup.ts: the `ugs`
 * functions, the orders of its tenants only, the subtree policy, the dashboard's role), as the server's admin;
 * safe to run again. `prefix` names the databases apart (tests).
 */
export async function setUpRoutedDatabases(adminUrl: string, options: { role?: string; prefix?: string } = {}): Promise<RoutedSetup> {
  const role = options.role ?? DASHBOARD_ROLE;
  const password = randomBytes(18).toString('hex');
  const databases = ROUTED_DATABASES.map((d) => ({ ...d, database: `${options.prefix ?? ''}${d.database}` }));
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  try {
    for (const { database } of databases) {
      if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new TypeError(`"${database}" is not a plain database name`);
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      // CREATE DATABASE cannot run in a transaction, nor take a parameter: the name is checked above.
      if (rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
    }
  } finally {
    await admin.end();
  }
  for (const { database, tenants } of databases) {
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    // One policy everywhere: in a tenant's own database a second wall, in the shared one what keeps initech-labs in its own rows.
    await setUpPostgresOrders(url.toString(), { role, tenants, password, subtree: true });
  }
  const { hostname, port } = new URL(adminUrl);
  return { role, password, host: hostname, port: Number(port || 5432), databases };
}

/**
 * The `ugs isolation-check` of each routed data source, ready to paste at the repository's root: it connects as the
 * data source is stored (the dashboard's role, never a superuser), so it needs no URL or password, and reads the
 * service's store (its UGS_DATA_DIR, if it has one). Each checks every group mapped to that database, as sessions the
 * example's app mints (include_descendants); test/examples/dashboard-routed.test.ts runs these very lines.
 */
export function isolationCheckCommands(setup: Pick<RoutedSetup, 'databases'>): string[] {
  return setup.databases.map(
    ({ dataSourceId }) =>
      `npx ugs isolation-check --data-source ${dataSourceId} --queries examples/dashboard/orders.sql --tenant-column tenant_id --include-descendants`,
  );
}
