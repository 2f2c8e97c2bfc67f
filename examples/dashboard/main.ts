import { parseArgs } from 'node:util';
import pg from 'pg';
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { startCustomerApp } from './customer-app.js';
import { startDashboardServer } from './dashboard-server.js';
import { openDemoOrders } from './demo-orders.js';
import { openExamplePostgres } from './example-postgres.js';
import { openPostgresOrders } from './postgres-orders.js';
import { setUpPostgresOrders } from './postgres-orders-setup.js';

/**
 * `npm run example:dashboard [-- --postgres]`: the dashboard and the customer's
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
  orders: database === undefined ? openDemoOrders() : openPostgresOrders(database.pool),
  // Shorter than the verifier's default (10 s), so a rotation shows within two seconds in the demo.
  revocationPollMs: integer('DASHBOARD_REVOCATION_POLL_MS', 2_000, 100, 3_600_000),
  port: integer('DASHBOARD_PORT', 4100, 0, 65_535),
});
const app = await startCustomerApp({
  serviceUrl,
  apiKey,
  dashboardUrl: dashboard.url,
  sessionSeconds: integer('SESSION_SECONDS', 600, 60, 86_400),
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

/** The bundled PostgreSQL (or EXAMPLE_DATABASE_URL's) with the orders set up, a pool as the dashboard's role; exits 1 saying why not. */
async function postgresOrNothing() {
  const server = await openExamplePostgres(process.env.EXAMPLE_DATABASE_URL).catch((error: unknown) => {
    console.error(`PostgreSQL cannot be started: ${error instanceof Error ? error.message : String(error)}`);
    return process.exit(1);
  });
  try {
    const { role, url } = await setUpPostgresOrders(server.adminUrl);
    const pool = new pg.Pool({ connectionString: url, max: 5 });
    // An idle connection the server drops (a restart) is replaced on the next query; without a listener it would end the process.
    pool.on('error', (error) => console.error(`dashboard: PostgreSQL connection lost: ${error.message}`));
    console.log(`Orders in PostgreSQL at ${server.where}, queried as ${role} under row-level security.`);
    return { server, pool };
  } catch (error) {
    console.error(
      `The orders cannot be set up in PostgreSQL at ${server.where}: ${error instanceof Error ? error.message : String(error)}`,
    );
    await server.close();
    return process.exit(1);
  }
}
