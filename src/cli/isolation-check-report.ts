import { maskDatabaseUrl } from '../secrets/secret-redaction.js';
import type { CliOutput } from './cli-output.js';
import type { IsolationReport, QueryOutcome } from '../isolation/isolation-check.js';
import { printTable } from './print-table.js';

/**
 * How `ugs isolation-check` ends: what its exit code says, and the report
 * it prints. It may only claim what it compared: each query's line says what
 * was checked and what was not, and the last line passes only when every
 * query was checked.
 */

/** The exit codes, each its own outcome, so a deploy step can tell a leak from a check that could not be made. */
export const ISOLATION_EXIT = {
  /** Every query was checked for every group, and nothing crossed. */
  passed: 0,
  /** A problem was found: rows with no claims, a row of another group, a row two groups received, a query that failed. */
  failed: 1,
  /** The check did not run: bad arguments, an unknown group, no store, a refused role, no connection. */
  notRun: 2,
  /** Nothing crossed in what was checked, but a query's rows could not be checked for rows of another group. */
  notEstablished: 3,
} as const;

export type IsolationOutcome = 'passed' | 'failed' | 'not_established';

export interface ReportContext {
  url: string;
  role: string;
  groups: string[];
  environment: string;
  tenantColumn: string | undefined;
  keys: string[][];
  includeDescendants: boolean;
}

export function outcomeOf(report: IsolationReport): IsolationOutcome {
  if (report.problems.length > 0) return 'failed';
  return report.queries.some((q) => !q.crossTenant.checked) ? 'not_established' : 'passed';
}

/** The queries whose rows could not be checked for rows of another group. */
export function notChecked(report: IsolationReport): QueryOutcome[] {
  return report.queries.filter((q) => !q.crossTenant.checked);
}

/** What was and was not checked for one query, in a sentence or two. */
export function checkedStatement(q: QueryOutcome, report: IsolationReport, context: ReportContext): string {
  const kinds = new Set(report.problems.filter((p) => p.query === q.query).map((p) => p.kind));
  const parts: string[] = [];
  if (!q.crossTenant.checked) parts.push(`not checked: ${q.crossTenant.reason}`);
  else if (q.dataRows === 0) parts.push('checked: no group received a row carrying data');
  else {
    const whose = context.includeDescendants ? "its own or its descendants'" : 'its own';
    const via = q.tenant!.lookedUpIn.length > 0 ? ` (looked up in ${q.tenant!.lookedUpIn.join(', ')} by the key it returned)` : '';
    parts.push(
      kinds.has('foreign_tenant')
        ? `checked: the ${q.tenant!.column} of every row a group received${via}: some are another group's (below)`
        : `checked: every row a group received carries ${whose} ${q.tenant!.column}${via}`,
    );
  }
  if (q.dataRows > 0)
    parts.push(
      q.key === null
        ? 'rows not compared between groups: they carry no key (a primary key of the table they come from, or --key)'
        : kinds.has('shared_row')
          ? `rows compared between groups on ${q.key.join(', ')}: some reached two (below)`
          : `no row reached two groups (compared on ${q.key.join(', ')})`,
    );
  return parts.join('; ');
}

export function printReport(report: IsolationReport, context: ReportContext, output: Pick<CliOutput, 'log'>): void {
  const outcome = outcomeOf(report);
  const { url, role, groups } = context;
  const count = (n: number | null) => (n === null ? 'error' : String(n));
  output.log(
    `Ran ${report.queries.length} ${report.queries.length === 1 ? 'query' : 'queries'} × ${groups.length} ` +
      `${groups.length === 1 ? 'group' : 'groups'} (${groups.join(', ')}) and with no claims, as role ${role} on ${maskDatabaseUrl(url)}; ` +
      'every run rolled back.',
  );
  output.log('');
  printTable(
    report.queries.map((q) => ({
      query: String(q.query),
      line: String(q.line),
      ...Object.fromEntries([...q.rows].map(([id, rows]) => [id, count(rows)])),
      'no claims': count(q.rowsWithoutClaims),
      'cross-tenant': q.crossTenant.checked ? 'checked' : 'NOT CHECKED',
      'first line': q.firstLine,
    })),
    output,
  );
  output.log('');
  for (const q of report.queries) output.log(`query ${q.query} (line ${q.line}): ${checkedStatement(q, report, context)}.`);
  output.log('');
  const unchecked = notChecked(report).length;
  if (outcome === 'passed') {
    const rows = report.queries.reduce((sum, q) => sum + q.dataRows, 0);
    output.log(
      rows === 0
        ? 'Passed: no query returned rows with no claims, and no group received a row carrying data.'
        : `Passed: every query was checked: none returned rows with no claims, and each of the ${rows} rows the groups received ` +
            `carries ${context.includeDescendants ? "its group's own or a descendant's" : "its group's own"} ${context.tenantColumn}.`,
    );
    return;
  }
  if (outcome === 'not_established') {
    output.log(
      `Not established: ${unchecked} of ${report.queries.length} queries could not be checked for rows of another group (above); ` +
        'what was checked found no problem.',
    );
    return;
  }
  output.log(
    `Failed: ${report.problems.length} ${report.problems.length === 1 ? 'problem' : 'problems'}` +
      `${unchecked > 0 ? `, and ${unchecked} of ${report.queries.length} queries could not be checked for rows of another group` : ''}.`,
  );
  for (const p of report.problems) {
    const groupsNamed = p.groups.length === 0 ? '' : `, ${p.groups.length === 1 ? 'group' : 'groups'} ${p.groups.join(', ')}`;
    output.log(`- query ${p.query} (line ${p.line}: ${p.firstLine})${groupsNamed}: ${p.message}`);
  }
}

export function printJsonReport(report: IsolationReport, context: ReportContext, output: Pick<CliOutput, 'log'>): void {
  const outcome = outcomeOf(report);
  const json = {
    passed: outcome === 'passed',
    outcome,
    database: maskDatabaseUrl(context.url),
    role: context.role,
    groups: context.groups,
    environment: context.environment,
    tenant_column: context.tenantColumn ?? null,
    keys: context.keys,
    include_descendants: context.includeDescendants,
    queries: report.queries.map((q) => ({
      query: q.query,
      line: q.line,
      first_line: q.firstLine,
      rows: Object.fromEntries(q.rows),
      rows_without_claims: q.rowsWithoutClaims,
      cross_tenant: q.crossTenant.checked ? 'checked' : 'not_checked',
      not_checked_because: q.crossTenant.checked ? null : q.crossTenant.reason,
      tenant_checked: q.crossTenant.checked && q.tenant !== null,
      tenant: q.tenant === null ? null : { column: q.tenant.column, looked_up_in: q.tenant.lookedUpIn },
      key: q.key,
      checked: checkedStatement(q, report, context),
    })),
    problems: report.problems.map((p) => ({
      query: p.query,
      line: p.line,
      first_line: p.firstLine,
      kind: p.kind,
      groups: p.groups,
      message: p.message,
    })),
  };
  output.log(JSON.stringify(json, null, 2));
}

/** The one line on stderr that says how the check ended, when it did not pass. */
export function failureLine(report: IsolationReport): string {
  const unchecked = notChecked(report).length;
  const total = report.queries.length;
  if (outcomeOf(report) === 'not_established')
    return `the isolation check could not check ${unchecked} of ${total} queries for rows of another group (the report on stdout).`;
  const problems = report.problems.length;
  return (
    `the isolation check failed: ${problems} ${problems === 1 ? 'problem' : 'problems'} in ` +
    `${new Set(report.problems.map((p) => p.query)).size} of ${total} queries` +
    `${unchecked > 0 ? `, and ${unchecked} of ${total} could not be checked for rows of another group` : ''} (the report on stdout).`
  );
}
