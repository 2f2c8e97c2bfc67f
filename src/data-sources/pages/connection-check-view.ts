import type { CheckFailure, ConnectionCheckResult } from '../connection-check.js';

/** One line of a check's outcome as the data source's page lists it; `tone` colours it (console.css, .state-…). */
export interface CheckLine {
  label: string;
  value: string;
  tone: 'ok' | 'failing' | 'disabled' | 'unknown';
}

/** What each failure category means to an operator, and what to look at: the server's own text is never shown. */
const FAILURES: Record<CheckFailure, string> = {
  address_refused: "refused: the address is link-local or a cloud metadata address, or one of this service's own ports",
  host_not_found: 'the host name does not resolve',
  connection_refused: 'nothing listens at that host and port',
  timeout: 'no answer in time (a firewall, or the wrong address)',
  tls_failed: 'TLS failed: the server does not offer it, or its certificate does not match the mode and CA',
  authentication_failed: 'the server refused the user and password',
  database_not_found: 'the server has no such database',
  unexpected_response: 'what answered is not a PostgreSQL server the check understands',
};

/**
 * A check's outcome, category by category, in the order the check learns them. A category the check did not reach
 * reads "not learned": a failed check says so rather than guessing.
 */
export function checkLines(result: ConnectionCheckResult): CheckLine[] {
  // `risky`: the answer that deserves a second look (a role row policies do not bind, a plain-text connection).
  const tone = (value: boolean | null, risky: boolean): CheckLine['tone'] =>
    value === null ? 'unknown' : value === risky ? 'failing' : 'ok';
  const text = (value: boolean | null, yes: string, no: string) => (value === null ? 'not learned' : value ? yes : no);
  return [
    { label: 'Reachable', value: result.reachable ? 'yes' : 'no', tone: result.reachable ? 'ok' : 'disabled' },
    { label: 'Authenticated', value: result.authenticated ? 'yes' : 'no', tone: result.authenticated ? 'ok' : 'disabled' },
    { label: 'Server version', value: result.serverVersion ?? 'not learned', tone: result.serverVersion === null ? 'unknown' : 'ok' },
    {
      label: 'Superuser',
      value: text(result.superuser, 'yes: row policies do not bind this role', 'no'),
      tone: tone(result.superuser, true),
    },
    {
      label: 'Bypass RLS',
      value: text(result.bypassRls, 'yes: row policies do not bind this role', 'no'),
      tone: tone(result.bypassRls, true),
    },
    { label: 'TLS', value: text(result.tls, 'yes', 'no: the connection is not encrypted'), tone: tone(result.tls, false) },
    {
      label: 'Failure',
      value: result.failure === null ? 'none' : `${result.failure}: ${FAILURES[result.failure]}`,
      tone: result.failure === null ? 'ok' : 'disabled',
    },
    { label: 'Took', value: `${Math.round(result.durationMs)} ms`, tone: 'unknown' },
  ];
}
