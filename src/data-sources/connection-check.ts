import type { PostgresConnection } from './data-source.js';

/**
 * Why a check stopped, as a category: a server's own text never reaches the caller (it can echo what an
 * attacker probing the network wants to read).
 */
export const CHECK_FAILURES = [
  'address_refused',
  'host_not_found',
  'connection_refused',
  'timeout',
  'tls_failed',
  'authentication_failed',
  'database_not_found',
  'unexpected_response',
] as const;
export type CheckFailure = (typeof CHECK_FAILURES)[number];

/** What a connection check found. A field is null when the check stopped before it could learn it. */
export interface ConnectionCheckResult {
  reachable: boolean;
  authenticated: boolean;
  /** `server_version` as the server reports it, e.g. "17.2"; null before authentication. */
  serverVersion: string | null;
  /** Whether the role is a superuser: row policies do not bind it. */
  superuser: boolean | null;
  /** Whether the role has BYPASSRLS: row policies do not bind it either. */
  bypassRls: boolean | null;
  /** Whether the connection is encrypted. */
  tls: boolean | null;
  failure: CheckFailure | null;
  durationMs: number;
}

/** Connects to a data source once, with a short timeout, and says what it found: a port, its adapter in ./check. */
export interface ConnectionChecker {
  check(connection: PostgresConnection & { password: string | null }): Promise<ConnectionCheckResult>;
}
