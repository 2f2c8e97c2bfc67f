import type { ConnectionOptions } from 'node:tls';
import type { PostgresSettings } from './data-source-credentials.js';

/**
 * A data source's TLS mode as node-postgres's `ssl` option. libpq's meanings: `require` encrypts without checking
 * the server (node's default would check it, so it is turned off); `verify-ca` checks that the server's
 * certificate chains to `ca` but not the name in it; `verify-full` checks both. Without `ca` the system's roots
 * are the anchors. Always given, so PGSSLMODE in the dashboard's environment never decides for a data source.
 */
export function pgSslOptions(ssl: PostgresSettings['ssl']): false | ConnectionOptions {
  const ca = ssl.ca === undefined ? {} : { ca: ssl.ca };
  switch (ssl.mode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      return { ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { ...ca, rejectUnauthorized: true };
  }
}
