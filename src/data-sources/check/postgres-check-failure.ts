import type { CheckFailure } from '../connection-check.js';

/** How far one connection attempt got: what decides a failure's category when its error alone does not. */
export interface CheckProgress {
  /** The TCP connection was made. */
  tcpConnected: boolean;
  /** The mode asked for TLS, and the TLS handshake finished. */
  tlsRequested: boolean;
  tlsEstablished: boolean;
  /** The server accepted the credentials (AuthenticationOk). */
  authenticated: boolean;
  /** The server asked for a password the data source does not have. */
  passwordMissing: boolean;
  /** The check's own deadline passed (it then closes the socket, which fails whatever was pending). */
  timedOut: boolean;
}

/** SQLSTATEs the server answers with (errcodes.txt) that have a category of their own. */
const SQLSTATE_FAILURES: ReadonlyMap<string, CheckFailure> = new Map<string, CheckFailure>([
  ['28P01', 'authentication_failed'], // invalid_password
  ['28000', 'authentication_failed'], // invalid_authorization_specification (pg_hba.conf refuses, no such role)
  ['3D000', 'database_not_found'], // invalid_catalog_name
  ['57014', 'timeout'], // query_canceled: statement_timeout
]);

/** Node's socket and resolver error codes. An unreachable host or network could not be connected to either. */
const SOCKET_FAILURES: ReadonlyMap<string, CheckFailure> = new Map<string, CheckFailure>([
  ['ECONNREFUSED', 'connection_refused'],
  ['EHOSTUNREACH', 'connection_refused'],
  ['ENETUNREACH', 'connection_refused'],
  ['EHOSTDOWN', 'connection_refused'],
  ['ENOTFOUND', 'host_not_found'],
  ['EAI_AGAIN', 'host_not_found'],
  ['ETIMEDOUT', 'timeout'],
]);

/** What pg's own timers fail with (client.js: the connect timeout, query_timeout); pg gives them no code. */
const PG_TIMEOUT_MESSAGES: ReadonlySet<string> = new Set(['timeout expired', 'Query read timeout']);

/**
 * A failed attempt's category. Only the error's code (a SQLSTATE or a Node code) and the attempt's progress are
 * read, never the server's text; anything unrecognised is `unexpected_response`. A failure between the TCP
 * connection and a finished TLS handshake is TLS's: the server refusing TLS ('N'), a certificate that does not
 * verify, a handshake cut short.
 */
export function checkFailureOf(error: unknown, progress: CheckProgress): CheckFailure {
  if (progress.timedOut) return 'timeout';
  if (progress.passwordMissing) return 'authentication_failed';
  // A Map, not an object: a hostile server's SQLSTATE could be "constructor".
  const code = (error as { code?: unknown } | null)?.code;
  const known = typeof code === 'string' ? (SQLSTATE_FAILURES.get(code) ?? SOCKET_FAILURES.get(code)) : undefined;
  if (known) return known;
  if (error instanceof Error && PG_TIMEOUT_MESSAGES.has(error.message)) return 'timeout';
  if (progress.tlsRequested && progress.tcpConnected && !progress.tlsEstablished) return 'tls_failed';
  return 'unexpected_response';
}
