import { isIP } from 'node:net';
import { invalidRequest } from '../kernel/errors.js';
import { DATA_SOURCE_LIMITS, SSL_MODES, type DataSourceSsl, type PostgresConnection, type SslMode } from './data-source.js';

/** A PostgreSQL connection as a caller sends it: everything optional, for a partial update too. */
export interface PostgresConnectionInput {
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  /** A string sets it; null removes it (a server that trusts the address, or a client certificate). */
  password?: string | null;
  ssl?: { mode?: SslMode; ca?: string | null };
}

/** A DNS name of letters, digits and hyphens per label (RFC 1123), dots between: no scheme, no port, no path. */
const HOST_NAME = /^(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/** The connection a create or update comes to: `current` with `input` over it, each field checked. */
export function mergedConnection(current: PostgresConnection | null, input: PostgresConnectionInput): PostgresConnection {
  const host = input.host ?? current?.host;
  const port = input.port ?? current?.port ?? 5432;
  const database = input.database ?? current?.database;
  const user = input.user ?? current?.user;
  if (host === undefined || database === undefined || user === undefined)
    throw invalidRequest('"connection" needs "host", "database" and "user" to create a data source ("port" is 5432 when absent).');
  if (!(isIP(host) !== 0 || HOST_NAME.test(host)))
    throw invalidRequest(
      `"connection.host" ${JSON.stringify(host)} is neither an IP address nor a host name: give the name or address alone, without a scheme, port or path.`,
    );
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw invalidRequest('"connection.port" is a whole number from 1 to 65535.');
  return { host, port, database, user, ssl: mergedSsl(current?.ssl, input.ssl) };
}

function mergedSsl(current: DataSourceSsl | undefined, input: PostgresConnectionInput['ssl']): DataSourceSsl {
  const mode = input?.mode ?? current?.mode ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(mode)) throw invalidRequest(`"connection.ssl.mode" is one of ${SSL_MODES.join(', ')}.`);
  const ca = input?.ca === undefined ? current?.ca : (input.ca ?? undefined);
  if (ca !== undefined) {
    if (ca.length > DATA_SOURCE_LIMITS.caMaxLength)
      throw invalidRequest(`"connection.ssl.ca" is at most ${DATA_SOURCE_LIMITS.caMaxLength} characters.`);
    if (!PEM_CERTIFICATE.test(ca))
      throw invalidRequest('"connection.ssl.ca" holds PEM certificates ("-----BEGIN CERTIFICATE-----" … "-----END CERTIFICATE-----").');
    if (mode === 'disable' || mode === 'require')
      throw invalidRequest(`"connection.ssl.ca" is only used by the modes verify-ca and verify-full; the mode is ${mode}.`);
  }
  return ca === undefined ? { mode } : { mode, ca };
}
