import { parseArgs } from 'node:util';
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { createDataRouter } from 'user-group-service/embed';
import { startCustomerApp } from './customer-app.js';
import { startDashboardServer } from './dashboard-server.js';
import { openDemoOrders } from './demo-orders.js';
import { openExamplePostgres } from './example-postgres.js';
import { openRoutedOrders } from './postgres-orders.js';
import { isolationCheckCommands, setUpRoutedDatabases } from './routed-databases.js';
import { registerExampleDataSources } from './example-data-sources.js';

/**
 * `npm run example:dashboard [-- --postgres]` (through main.ts): the dashboard and the customer's
 * app that embeds it, against a running user group service (README.md beside
 * this file); with --postgres, the orders come from PostgreSQL under row-level
 * security instead of SQLite.
 */
let flags: { postgres: boolean };
try {
  flags = parseArgs({ options: { postgres: { type: 'boolean', default: false } } }).values;
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}; see examples/dashboard/README.md`);
  process.exit(2);
}

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined || value === '') {
    console.error(`${name} is not set; see examples/dashboard/README.md`);
    process.exit(2);
  }
  return value;
}

function integer(name: string, fallback: number, least: number, most: number): number {
  const value = Number(setting(name, String(fallback)));
  if (!Number.isInteger(value) || value < least || value > most) {
    console.error(`${name} must be a whole number from ${least} to ${most}`);
    process.exit(2);
  }
  return value;
}

const serviceUrl = setting('UGS_URL', 'http://127.0.0.1:8080');
const apiKey = setting('UGS_API_KEY');

// Fails fast, in one line, on a service that is not there or a key it refuses.
try {
  const { environment } = await new UserGroupClient({ baseUrl: serviceUrl, apiKey, retries: 0 }).embedRevocations();
  console.log(`The user group service at ${serviceUrl} accepts the key (environment ${environment}).`);
} catch (error) {
  const why = error instanceof UserGroupServiceError ? `${error.status} ${error.code}: ${error.message}` : String(error);
  console.error(`The user group service at ${serviceUrl} cannot be used: ${why}`);
  process.exit(1);
}

const database = flags.postgres ? await postgresOrNothing() : undefined;
const dashboard = await startDashboardServer({
  serviceUrl,
  apiKey,
  orders: database === undefined ? openDemoOrders() : database.orders,
  // Shorter than the verifier's default (10 s), so a rotation shows within two seconds in the demo.
  revocationPollMs: integer('DASHBOARD_REVOCATION_POLL_MS', 2_000, 100, 3_600_000),
  port: integer('DASHBOARD_PORT', 4100, 0, 65_535),
});
const app = await startCustomerApp({
  serviceUrl,
  apiKey,
  dashboardUrl: dashboard.url,
  sessionSeconds: integer('SESSION_SECONDS', 600, 60, 86_400),
  // The routed databases' policy admits a group's subtree: initech's sessions carry initech-labs (desc).
  includeDescendants: database !== undefined,
  port: integer('CUSTOMER_APP_PORT', 4000, 0, 65_535),
});
console.log(`Dashboard:    ${dashboard.url}`);
console.log(`Customer app: ${app.url}/?group=<user_group_id>  (open it in a browser; Ctrl-C stops both)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void Promise.all([app.close(), dashboard.close()])
      .then(() => database?.server.close())
      .then(() => process.exit(0));
  });
}

/**
 * The bundled PostgreSQL (or EXAMPLE_DATABASE_URL's) with the three routed databases set up and registered as data
 * sources of the service, the groups mapped to them, and the orders read through a data router holding
 * UGS_DASHBOARD_KEY; exits 1 saying why not.
 */
async function postgresOrNothing() {
  const dashboardKey = setting('UGS_DASHBOARD_KEY');
  const server = await openExamplePostgres(process.env.EXAMPLE_DATABASE_URL).catch((error: unknown) => {
    console.error(`PostgreSQL cannot be started: ${error instanceof Error ? error.message : String(error)}`);
    return process.exit(1);
  });
  try {
    const setup = await setUpRoutedDatabases(server.adminUrl);
    await registerExampleDataSources(new UserGroupClient({ baseUrl: serviceUrl, apiKey, retries: 0 }), setup).catch((error: unknown) => {
      if (error instanceof UserGroupServiceError && error.status === 403)
        throw new Error(
          `--postgres registers the data sources and maps the groups, which needs a read-write UGS_API_KEY (${error.message})`,
        );
      throw error;
    });
    // Fails fast on a key the router would be refused with: otherwise every page would say the orders cannot be reached.
    await new UserGroupClient({ baseUrl: serviceUrl, apiKey: dashboardKey, retries: 0 }).dataSources
      .credentials(setup.databases[0]!.dataSourceId)
      .catch((error: unknown) => {
        if (!(error instanceof UserGroupServiceError)) throw error;
        throw new Error(
          `UGS_DASHBOARD_KEY cannot read the data sources' connections: a dashboard key of this environment can (${error.message})`,
        );
      });
    const router = createDataRouter({ serviceUrl, apiKey: dashboardKey });
    console.log(
      `Orders in PostgreSQL at ${server.where}, routed by each group's mapping, queried as ${setup.role} under row-level security:`,
    );
    for (const { dataSourceId, database, tenants } of setup.databases) {
      console.log(`  data source ${dataSourceId}: database ${database}, the orders of ${tenants.join(' and ')}`);
    }
    console.log(
      "Check each data source's isolation, as the role the dashboard uses (paste at the repository's root; the service's UGS_DATA_DIR if it has one):",
    );
    for (const command of isolationCheckCommands(setup)) console.log(`  ${command}`);
    return { server, orders: openRoutedOrders(router) };
  } catch (error) {
    console.error(
      `The orders cannot be set up in PostgreSQL at ${server.where}: ${error instanceof Error ? error.message : String(error)}`,
    );
    await server.close();
    return process.exit(1);
  }
}
