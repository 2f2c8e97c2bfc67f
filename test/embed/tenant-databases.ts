import { postgresPolicySql, tablePolicySql } from 'user-group-service/embed';
import { adminQuery } from '../helpers/embedded-postgres.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { createTestRole, type TestRole } from '../helpers/postgres-roles.js';

/**
 * The databases a company hosts its customers' data in, on the test server: a database of its own for some
 * customers, one shared by the rest with row policies. Every table is `orders (id, tenant_id)`; a row's
 * database is what `current_database()` says where it was read. Each database has two equivalent login roles
 * (the same grants, neither superuser nor BYPASSRLS), so a data source can be moved from one to the other.
 */

/** A data source's `connection` as POST /api/data_sources takes it. */
export interface DataSourceConnection {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string | null;
  ssl: { mode: 'disable' };
}

export interface TenantDatabase {
  /** The database's name: what `current_database()` answers in it. */
  readonly name: string;
  /** Superuser URL of the database, for the test's own checks. */
  readonly adminUrl: string;
  /** The tenant ids of its rows, and how many rows each has. */
  readonly rows: Readonly<Record<string, number>>;
  readonly roles: readonly [TestRole, TestRole];
  /** The connection a data source names to reach this database as `roles[index]`. */
  connection(index?: 0 | 1): DataSourceConnection;
  drop(): Promise<void>;
}

/**
 * A database holding `rows` (tenant id: how many orders), readable by its two roles. `shared`: the table is
 * under row-level security, forced, with the package's policy (a group sees its own rows and its
 * descendants': the `subtree` policy), so the roles see only the rows of the session's group.
 */
export async function createTenantDatabase(rows: Record<string, number>, options: { shared?: boolean } = {}): Promise<TenantDatabase> {
  const database: TestDatabase = await createTestDatabase();
  const roles: TestRole[] = [];
  try {
    roles.push(await createTestRole(database.url), await createTestRole(database.url));
    const inserts = Object.entries(rows).flatMap(([tenant, count]) => Array.from({ length: count }, () => tenant));
    await adminQuery(
      database.url,
      `${postgresPolicySql()}
      CREATE TABLE orders (id serial PRIMARY KEY, tenant_id text NOT NULL);
      GRANT SELECT ON orders TO ${roles.map((role) => role.name).join(', ')};
      ${options.shared ? tablePolicySql({ table: 'orders', column: 'tenant_id', subtree: true }) : ''}`,
    );
    await adminQuery(database.url, 'INSERT INTO orders (tenant_id) SELECT unnest($1::text[])', [inserts]);
  } catch (error) {
    for (const role of roles) await role.drop();
    await database.drop();
    throw error;
  }
  const url = new URL(database.url);
  const name = url.pathname.slice(1);
  return {
    name,
    adminUrl: database.url,
    rows,
    roles: roles as [TestRole, TestRole],
    connection(index = 0) {
      const role = new URL(roles[index]!.url);
      return {
        host: url.hostname,
        port: Number(url.port),
        database: name,
        user: decodeURIComponent(role.username),
        password: decodeURIComponent(role.password),
        ssl: { mode: 'disable' },
      };
    },
    async drop() {
      // The roles' connections first: a router's pools may still hold some.
      await adminQuery(
        database.url,
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      for (const role of roles) await role.drop();
      await database.drop();
    },
  };
}

/** The router's connections to `database` now (application_name ugs-data-router), by role. */
export async function routerConnections(database: TenantDatabase): Promise<string[]> {
  const { rows } = await adminQuery(
    database.adminUrl,
    `SELECT usename FROM pg_stat_activity WHERE datname = $1 AND application_name = 'ugs-data-router' ORDER BY usename`,
    [database.name],
  );
  return rows.map((row: { usename: string }) => row.usename);
}
