import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { CheckFailure, ConnectionChecker, ConnectionCheckResult } from '../connection-check.js';
import type { PostgresConnection } from '../data-source.js';
import { DataSourceAddressRefused, type DataSourceAddressPolicy } from './data-source-address-policy.js';
import { checkFailureOf, type CheckProgress } from './postgres-check-failure.js';
import { postgresSslOptions } from './postgres-ssl-options.js';

export interface PostgresConnectionCheckerOptions {
  /** Which hosts may be connected to, and at which addresses. */
  addressPolicy: Pick<DataSourceAddressPolicy, 'addressFor'>;
  /** How long resolving the host and connecting (TCP, TLS, authentication) may take in all; 5 s by default. */
  connectTimeoutMs?: number;
  /** How long the one query may take once connected; 5 s by default. */
  queryTimeoutMs?: number;
}

type CheckedConnection = PostgresConnection & { password: string | null };
type Found = Omit<ConnectionCheckResult, 'durationMs'>;

/** What the check asks, in one statement: the version, the role's two row-security bypasses, and whether TLS is in use. */
const ROLE_QUERY = `SELECT current_setting('server_version') AS server_version, r.rolsuper, r.rolbypassrls,
  (SELECT s.ssl FROM pg_stat_ssl s WHERE s.pid = pg_backend_pid()) AS ssl
FROM pg_roles r WHERE r.rolname = current_user`;

const NOTHING_FOUND: Found = {
  reachable: false,
  authenticated: false,
  serverVersion: null,
  superuser: null,
  bypassRls: null,
  tls: null,
  failure: null,
};

/**
 * Connects to a PostgreSQL data source once and reports what it found as categories, never the server's text. The
 * host goes through the address policy first, and the client connects to the addresses it answers (one after
 * another while they refuse, as libpq does), never to the name again.
 */
export class PostgresConnectionChecker implements ConnectionChecker {
  private readonly connectTimeoutMs: number;
  private readonly queryTimeoutMs: number;

  constructor(private readonly options: PostgresConnectionCheckerOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 5000;
  }

  async check(connection: CheckedConnection): Promise<ConnectionCheckResult> {
    const started = performance.now();
    const deadline = started + this.connectTimeoutMs;
    const found = await this.checkBefore(deadline, connection);
    return { ...found, durationMs: Math.round(performance.now() - started) };
  }

  private async checkBefore(deadline: number, connection: CheckedConnection): Promise<Found> {
    let target: { addresses: string[]; servername: string };
    try {
      target = await beforeDeadline(this.options.addressPolicy.addressFor(connection.host, connection.port), deadline);
    } catch (error) {
      return { ...NOTHING_FOUND, failure: addressFailure(error) };
    }
    let found: Found = { ...NOTHING_FOUND, failure: 'connection_refused' };
    for (const address of target.addresses) {
      found = await this.checkAddress(address, target.servername, connection, deadline);
      if (found.failure !== 'connection_refused' || performance.now() >= deadline) break;
    }
    return found;
  }

  /** One client, one address: connect, ask, end. */
  private async checkAddress(address: string, servername: string, connection: CheckedConnection, deadline: number): Promise<Found> {
    const progress: CheckProgress = {
      tcpConnected: false,
      tlsRequested: connection.ssl.mode !== 'disable',
      tlsEstablished: false,
      authenticated: false,
      passwordMissing: false,
      timedOut: false,
    };
    // The check's own socket: its `connect` is what `reachable` means, and destroying it is how a deadline ends the attempt.
    const socket = new Socket();
    socket.once('connect', () => (progress.tcpConnected = true));
    const client = new pg.Client({
      host: address,
      port: connection.port,
      database: connection.database,
      user: connection.user,
      // A function, so that pg never falls back to PGPASSWORD or ~/.pgpass: the service's own credentials stay home.
      password: () => {
        if (!connection.password) {
          progress.passwordMissing = true;
          throw new Error('the data source has no password');
        }
        return connection.password;
      },
      ssl: postgresSslOptions(connection.ssl, servername),
      // Given, so that PGSSLNEGOTIATION in the service's environment does not change how TLS is asked for.
      sslnegotiation: 'postgres',
      stream: () => socket,
      statement_timeout: this.queryTimeoutMs,
      query_timeout: this.queryTimeoutMs,
      application_name: 'ugs-connection-check',
    });
    // An error after the answer (the server closing) has nobody to tell; unhandled, it would end the process.
    client.on('error', () => {});
    client.connection.once('sslconnect', () => client.connection.stream.once('secureConnect', () => (progress.tlsEstablished = true)));
    client.connection.once('authenticationOk', () => (progress.authenticated = true));
    let timer = endAt(deadline, socket, progress);
    try {
      await client.connect();
      clearTimeout(timer);
      timer = endAt(performance.now() + this.queryTimeoutMs, socket, progress);
      const { rows } = await client.query<Record<string, unknown>>(ROLE_QUERY);
      return rowFound(rows[0], progress);
    } catch (error) {
      return {
        ...NOTHING_FOUND,
        reachable: progress.tcpConnected,
        authenticated: progress.authenticated,
        failure: checkFailureOf(error, progress),
      };
    } finally {
      clearTimeout(timer);
      await endQuietly(client, socket, this.queryTimeoutMs);
    }
  }
}

/** The row's answers, each of the type it must be; a server that answers otherwise is not one to trust. */
function rowFound(row: Record<string, unknown> | undefined, progress: CheckProgress): Found {
  const connected = { ...NOTHING_FOUND, reachable: true, authenticated: true };
  if (!row || typeof row.server_version !== 'string' || typeof row.rolsuper !== 'boolean' || typeof row.rolbypassrls !== 'boolean')
    return { ...connected, failure: 'unexpected_response' };
  return {
    ...connected,
    // The leading number only ("17.2" of "17.2 (Debian 17.2-1.pgdg120+1)"): the rest is the server's text.
    serverVersion: /^\d{1,4}(?:\.\d{1,4}){0,2}/.exec(row.server_version)?.[0] ?? null,
    superuser: row.rolsuper,
    bypassRls: row.rolbypassrls,
    tls: typeof row.ssl === 'boolean' ? row.ssl : progress.tlsEstablished,
  };
}

function addressFailure(error: unknown): CheckFailure {
  if (error instanceof DataSourceAddressRefused) return error.reason;
  return error instanceof DeadlinePassed ? 'timeout' : 'unexpected_response';
}

class DeadlinePassed extends Error {}

/** The promise's outcome, or DeadlinePassed at `deadline` (a lookup cannot be cancelled; it is left to finish). */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const passed = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed()), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([promise, passed]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ends the attempt at `deadline`: the socket closes, and whatever pg was waiting for fails. */
function endAt(deadline: number, socket: Socket, progress: CheckProgress): ReturnType<typeof setTimeout> {
  return setTimeout(
    () => {
      progress.timedOut = true;
      socket.destroy();
    },
    Math.max(0, deadline - performance.now()),
  );
}

/** Says goodbye (Terminate) when it can, within `boundMs`, and closes the socket in any case. */
async function endQuietly(client: pg.Client, socket: Socket, boundMs: number): Promise<void> {
  if (!socket.destroyed) {
    const bound = setTimeout(() => socket.destroy(), boundMs);
    await client.end().catch(() => {});
    clearTimeout(bound);
  }
  socket.destroy();
}
