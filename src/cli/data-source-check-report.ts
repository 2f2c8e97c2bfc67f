import type { ConnectionCheckResult } from '../data-sources/connection-check.js';
import type { CliOutput } from './cli-output.js';

const yesNo = (value: boolean | null) => (value === null ? 'unknown' : value ? 'yes' : 'no');

/**
 * What `ugs data-sources check` prints: one line per category, aligned, then on stderr a warning for a role row
 * policies do not bind. Only categories: a server's own text never reaches the operator's terminal or logs.
 */
export function printCheck(result: ConnectionCheckResult, output: Pick<CliOutput, 'log' | 'error'>): void {
  const lines: [string, string][] = [
    ['reachable', yesNo(result.reachable)],
    ['authenticated', yesNo(result.authenticated)],
    ['server version', result.serverVersion ?? 'unknown'],
    ['superuser', yesNo(result.superuser)],
    ['bypass RLS', yesNo(result.bypassRls)],
    ['TLS', yesNo(result.tls)],
    ['failure', result.failure ?? 'none'],
    ['took', `${Math.round(result.durationMs)} ms`],
  ];
  const width = Math.max(...lines.map(([label]) => label.length));
  for (const [label, value] of lines) output.log(`${label.padEnd(width)}  ${value}`);
  if (result.superuser || result.bypassRls)
    output.error(
      `ugs: warning: the role is ${result.superuser ? 'a superuser' : 'BYPASSRLS'}: row policies do not bind it, so a shared database does not keep groups apart through it; connect as a role with neither.`,
    );
}
