import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { maskDatabaseUrl } from '../../secrets/secret-redaction.js';
import type { CliOutput } from '../cli-output.js';
import { checkIsolation, refuseUnboundRole, type GroupClaims, type IsolationReport } from '../isolation-check.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { controlsTransaction, splitStatements, type SqlStatement } from '../sql-statements.js';

interface CheckCommandOptions {
  database: string;
  queries: string;
  groups: string[];
  tenantColumn?: string;
  environment: Environment;
  includeDescendants?: boolean;
  json?: boolean;
  statementTimeoutMs: number;
}

const CONNECT_TIMEOUT_MS = 10_000;

/** `acme,globex` → its ids, each once. */
function groupList(text: string): string[] {
  const ids = [...new Set(text.split(',').map((id) => id.trim()))].filter((id) => id !== '');
  if (ids.length === 0)
    throw new CliError('--groups names no group: give the user_group_ids to check, comma-separated (--groups acme,globex).');
  return ids;
}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new CliError(`--statement-timeout-ms must be a positive whole number, not ${JSON.stringify(text)}.`);
  return value;
}

/** A postgres:// URL, checked before anything is read; a message never shows its password. */
function databaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('--database is not a URL: give postgres://role:password@host:5432/database (or the password in PGPASSWORD).');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new CliError(`--database must be a postgres:// or postgresql:// URL, not ${maskDatabaseUrl(text)}.`);
  return text;
}

async function readStatements(file: string): Promise<SqlStatement[]> {
  let script: string;
  try {
    script = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read --queries ${file}: ${(error as Error).message}.`);
  }
  const statements = splitStatements(script);
  if (statements.length === 0) throw new CliError(`${file} holds no query: give the dashboard's queries, separated by ;.`);
  const control = statements.find((s) => controlsTransaction(s.text));
  if (control !== undefined)
    throw new CliError(
      `query ${control.number} (line ${control.line}: ${control.firstLine}) begins or ends a transaction: the check runs each query ` +
        'in a transaction of its own and rolls it back, so leave transaction control out of the file.',
    );
  return statements;
}

/** Every group's claims, as a session minted now would carry them; an unknown group stops the check before it connects anywhere. */
async function claimsOf(ids: string[], options: CheckCommandOptions, output: CliOutput): Promise<Map<string, GroupClaims>> {
  return withServices(async (core) => {
    const claims = new Map<string, GroupClaims>();
    for (const id of ids) {
      const session = await core.embedSessions.sessionClaims(operator(options.environment), id, {
        includeDescendants: options.includeDescendants,
      });
      // The properties are JSON as stored (validated on the way in), the very values a token carries.
      claims.set(id, session as GroupClaims);
    }
    return claims;
  }, output);
}

/** What the driver or the server says never carries the password; this keeps it so should one of them quote the URL. */
function redactor(url: string): (text: string) => string {
  const password = new URL(url).password;
  if (password === '') return (text) => text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoding after all: the driver reads it as written.
  }
  return (text) => text.replaceAll(password, '****').replaceAll(decoded, '****');
}

async function runCheck(
  url: string,
  statements: SqlStatement[],
  claims: Map<string, GroupClaims>,
  options: CheckCommandOptions,
): Promise<{ role: string; report: IsolationReport }> {
  const { default: pg } = await import('pg');
  const redact = redactor(url);
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: options.statementTimeoutMs,
    application_name: 'ugs isolation-check',
  });
  // A connection dropped between queries is reported by the query that meets it; unheard, the event would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new CliError(`cannot connect to ${maskDatabaseUrl(url)}: ${redact((error as Error).message)}`);
  }
  try {
    const role = await refuseUnboundRole(client);
    const report = await checkIsolation(client, statements, claims, {
      tenantColumn: options.tenantColumn,
      includeDescendants: options.includeDescendants === true,
    });
    return { role, report };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`the check stopped: ${redact((error as Error).message)} (${maskDatabaseUrl(url)})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function printReport(
  { role, report }: { role: string; report: IsolationReport },
  context: { url: string; groups: string[]; options: CheckCommandOptions },
  output: CliOutput,
): void {
  const { url, groups, options } = context;
  if (options.json) {
    output.log(
      JSON.stringify(
        {
          passed: report.problems.length === 0,
          database: maskDatabaseUrl(url),
          role,
          groups,
          environment: options.environment,
          tenant_column: options.tenantColumn ?? null,
          include_descendants: options.includeDescendants === true,
          queries: report.queries.map((q) => ({
            query: q.query,
            line: q.line,
            first_line: q.firstLine,
            rows: Object.fromEntries(q.rows),
            rows_without_claims: q.rowsWithoutClaims,
            tenant_checked: q.tenantChecked,
          })),
          problems: report.problems.map((p) => ({
            query: p.query,
            line: p.line,
            first_line: p.firstLine,
            kind: p.kind,
            groups: p.groups,
            message: p.message,
          })),
        },
        null,
        2,
      ),
    );
    return;
  }
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
      ...(options.tenantColumn === undefined ? {} : { [options.tenantColumn]: q.tenantChecked ? 'checked' : 'not returned' }),
      'first line': q.firstLine,
    })),
    output,
  );
  output.log('');
  if (report.problems.length === 0) {
    output.log(
      'Passed: no query returned rows with no claims' +
        (options.tenantColumn === undefined ? '' : `, rows of another group by ${options.tenantColumn}`) +
        ', or the same row for two groups.',
    );
    return;
  }
  output.log(`Failed: ${report.problems.length} ${report.problems.length === 1 ? 'problem' : 'problems'}.`);
  for (const p of report.problems) {
    const groupsNamed = p.groups.length === 0 ? '' : `, ${p.groups.length === 1 ? 'group' : 'groups'} ${p.groups.join(', ')}`;
    output.log(`- query ${p.query} (line ${p.line}: ${p.firstLine})${groupsNamed}: ${p.message}`);
  }
}

export function isolationCheckCommand(program: Command, output: CliOutput): void {
  program
    .command('isolation-check')
    .description(
      "prove a database's row-level policies isolate groups: runs every query of --queries once per group under the claims a session " +
        'minted now would carry (read from this service’s store) and once with no claims, each in a transaction rolled back; exit 1 with ' +
        'a report when a query returns rows with no claims, rows of another group (--tenant-column) or the same row for two groups, ' +
        'or fails; 0 with a summary otherwise. Refuses a superuser or BYPASSRLS role',
    )
    .requiredOption(
      '--database <url>',
      "the dashboard's database, as the role the dashboard queries with (postgres://role:password@host/db)",
    )
    .requiredOption('--queries <file>', "a .sql file of the dashboard's queries, separated by ; ({{ placeholders }} are bound per group)")
    .requiredOption('--groups <ids>', 'the user_group_ids to check, comma-separated (acme,globex)', groupList)
    .option('--tenant-column <column>', "the column naming each row's group: a row whose value is not the group's id fails")
    .addOption(new Option('--environment <environment>', 'the environment of the groups').choices(ENVIRONMENTS).default('Customer'))
    .option('--include-descendants', 'claims with the group’s descendants (desc), as sessions minted with include_descendants')
    .option('--statement-timeout-ms <ms>', 'how long one query may run', positiveInteger, 10_000)
    .option('--json', 'print the report as JSON')
    .action(async (options: CheckCommandOptions) => {
      const url = databaseUrl(options.database);
      const statements = await readStatements(options.queries);
      const claims = await claimsOf(options.groups, options, output);
      const result = await runCheck(url, statements, claims, options);
      printReport(result, { url, groups: options.groups, options }, output);
      const problems = result.report.problems.length;
      if (problems > 0)
        throw new CliError(
          `the isolation check failed: ${problems} ${problems === 1 ? 'problem' : 'problems'} in ` +
            `${new Set(result.report.problems.map((p) => p.query)).size} of ${statements.length} queries (the report on stdout).`,
        );
    });
}
