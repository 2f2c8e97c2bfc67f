import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { startCustomerApp } from './customer-app.js';
import { startDashboardServer } from './dashboard-server.js';

/**
 * `npm run example:dashboard`: the dashboard and the customer's app that
 * embeds it, against a running user group service (README.md beside this file).
 */
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

const dashboard = await startDashboardServer({
  serviceUrl,
  apiKey,
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
    void Promise.all([app.close(), dashboard.close()]).then(() => process.exit(0));
  });
}
