import { readFile } from 'node:fs/promises';
import { CommanderError, Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { maskDatabaseUrl } from '../../secrets/secret-redaction.js';
import type { CliOutput } from '../cli-output.js';
import {
  checkIsolation,
  IsolationCheckRefusal,
  refuseUnboundRole,
  type GroupClaims,
  type IsolationReport,
} from '../../isolation/isolation-check.js';
import { failureLine, ISOLATION_EXIT, outcomeOf, printJsonReport, printReport } from '../isolation-check-report.js';
import { operator } from '../operator.js';
import { CliError, isExpectedFailure, withServices } from '../run-command.js';
import { controlsTransaction, splitStatements, type SqlStatement } from '../../isolation/sql-statements.js';
import { postgresSslOptions } from '../../data-sources/check/postgres-ssl-options.js';
import type { ClientConfig } from 'pg';

interface CheckCommandOptions {
  database?: string;
  dataSource?: string;
  queries: string;
  groups?: string[];
  tenantColumn?: string;
  key: string[][];
  environment: Environment;
  includeDescendants?: boolean;
  json?: boolean;
  statementTimeoutMs: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** With --data-source and no --groups: at most this many groups mapping to it are checked (name them with --groups beyond). */
const MAPPED_GROUPS_MAX = 1000;

/** Where the check connects: a pg client's settings, and the URL shown for it (never with its password). */
interface CheckTarget {
  config: ClientConfig;
  shownUrl: string;
  password: string | null;
}

/** A reason the check could not run, in one line: its own exit code, apart from a leak's. */
function notRun(message: string): CliError {
  return new CliError(message, ISOLATION_EXIT.notRun);
}

/** `acme,globex` → its ids, each once. */
function groupList(text: string): string[] {
  const ids = [...new Set(text.split(',').map((id) => id.trim()))].filter((id) => id !== '');
  if (ids.length === 0) throw notRun('--groups names no group: give the user_group_ids to check, comma-separated (--groups acme,globex).');
  return ids;
}

/** `--key id` or `--key order_id,line`, repeatable: each one more way a query's rows may be named. */
function keyList(text: string, previous: string[][]): string[][] {
  const columns = text.split(',').map((column) => column.trim());
  if (columns.some((column) => column === ''))
    throw notRun(`--key ${JSON.stringify(text)} names an empty column: give the columns naming a row, comma-separated (--key id).`);
  return [...previous, columns];
}

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw notRun(`--statement-timeout-ms must be a positive whole number, not ${JSON.stringify(text)}.`);
  return value;
}

/** A postgres:// URL, checked before anything is read; a message never shows its password. */
function databaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw notRun('--database is not a URL: give postgres://role:password@host:5432/database (or the password in PGPASSWORD).');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw notRun(`--database must be a postgres:// or postgresql:// URL, not ${maskDatabaseUrl(text)}.`);
  return text;
}

async function readStatements(file: string): Promise<SqlStatement[]> {
  let script: string;
  try {
    script = await readFile(file, 'utf8');
  } catch (error) {
    throw notRun(`cannot read --queries ${file}: ${(error as Error).message}.`);
  }
  const statements = splitStatements(script);
  if (statements.length === 0) throw notRun(`${file} holds no query: give the dashboard's queries, separated by ;.`);
  const control = statements.find((s) => controlsTransaction(s.text));
  if (control !== undefined)
    throw notRun(
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
function redactor(password: string | null): (text: string) => string {
  if (password === null || password === '') return (text) => text;
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Not percent-encoding after all: the driver reads it as written.
  }
  return (text) => text.replaceAll(password, '****').replaceAll(decoded, '****');
}

/** --database's URL as a target. */
function urlTarget(url: string): CheckTarget {
  return { config: { connectionString: url }, shownUrl: url, password: new URL(url).password || null };
}

/**
 * --data-source's connection as the service keeps it (the password opened from its seal, as a dashboard key reads
 * it), and, without --groups, the groups whose own mapping names it with their descendants, who inherit it.
 */
async function dataSourceTarget(
  id: string,
  options: CheckCommandOptions,
  output: CliOutput,
): Promise<{ target: CheckTarget; groups: string[] }> {
  return withServices(async (core) => {
    const reader = { ...operator(options.environment), access: 'dashboard' as const };
    const { connection } = await core.dataSources.credentials(reader, id);
    let groups = options.groups;
    if (groups === undefined) {
      const mapped = await core.dataSources.mappedGroups(operator(options.environment), id, MAPPED_GROUPS_MAX);
      if (mapped.total === 0)
        throw notRun(`no group maps a schema to data source ${JSON.stringify(id)}: name the groups to check with --groups.`);
      if (mapped.total > MAPPED_GROUPS_MAX)
        throw notRun(
          `${mapped.total} groups map to data source ${JSON.stringify(id)}: name the ones to check with --groups (at most ${MAPPED_GROUPS_MAX} are taken by default).`,
        );
      const all = new Set(mapped.providedIds);
      for (const parent of mapped.providedIds) {
        for (let cursor: string | undefined; ;) {
          const page = await core.userGroups.descendants(operator(options.environment), parent, { limit: 500, cursor });
          for (const group of page.groups) all.add(group.providedId);
          if (page.nextCursor === null) break;
          cursor = page.nextCursor;
        }
      }
      groups = [...all];
    }
    const shown = new URL('postgres://host');
    shown.hostname = connection.host.includes(':') ? `[${connection.host}]` : connection.host;
    shown.port = String(connection.port);
    shown.username = encodeURIComponent(connection.user);
    shown.pathname = `/${encodeURIComponent(connection.database)}`;
    const target: CheckTarget = {
      config: {
        host: connection.host,
        port: connection.port,
        database: connection.database,
        user: connection.user,
        // A function, so pg never falls back to PGPASSWORD or ~/.pgpass (this process's own credentials).
        password: () => connection.password ?? '',
        ssl: postgresSslOptions(connection.ssl, connection.host),
      },
      shownUrl: shown.toString(),
      password: connection.password,
    };
    return { target, groups };
  }, output);
}

async function runCheck(
  target: CheckTarget,
  statements: SqlStatement[],
  claims: Map<string, GroupClaims>,
  options: CheckCommandOptions,
): Promise<{ role: string; report: IsolationReport }> {
  const { default: pg } = await import('pg');
  const url = target.shownUrl;
  const redact = redactor(target.password);
  const client = new pg.Client({
    ...target.config,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: options.statementTimeoutMs,
    application_name: 'ugs isolation-check',
  });
  // A connection dropped between queries is reported by the query that meets it; unheard, the event would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw notRun(`cannot connect to ${maskDatabaseUrl(url)}: ${redact((error as Error).message)}`);
  }
  try {
    const role = await refuseUnboundRole(client);
    const report = await checkIsolation(client, statements, claims, {
      tenantColumn: options.tenantColumn,
      keys: options.key,
      includeDescendants: options.includeDescendants === true,
    });
    return { role, report };
  } catch (error) {
    if (error instanceof IsolationCheckRefusal) throw new CliError(error.message);
    throw notRun(`the check stopped: ${redact((error as Error).message)} (${maskDatabaseUrl(url)})`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function isolationCheckCommand(program: Command, output: CliOutput): void {
  program
    .command('isolation-check')
    .description(
      "prove a database's row-level policies isolate groups: runs every query of --queries once per group under the claims a session " +
        'minted now would carry (read from this service’s store) and once with no claims, each in a transaction rolled back, and ' +
        'compares rows on their key and their tenant column, never on every column. Exit 0: every query checked, nothing crossed; ' +
        '1: rows with no claims, of another group or reaching two groups, or a query failed; 2: the check could not run; 3: a query ' +
        'could not be checked for rows of another group (it returns neither --tenant-column nor the key of a table that has it). ' +
        'Refuses a superuser or BYPASSRLS role',
    )
    .option('--database <url>', "the dashboard's database, as the role the dashboard queries with (postgres://role:password@host/db)")
    .option(
      '--data-source <id>',
      'instead of --database: a data source of this service (ugs data-sources list), connected to as it is stored, the role the data router uses; without --groups, every group whose mapping names it and their descendants',
    )
    .requiredOption('--queries <file>', "a .sql file of the dashboard's queries, separated by ; ({{ placeholders }} are bound per group)")
    .option('--groups <ids>', 'the user_group_ids to check, comma-separated (acme,globex); required with --database', groupList)
    .option(
      '--tenant-column <column>',
      "the column naming each row's group, returned by a query or in the table whose primary key it returns: a row whose value is " +
        "not the group's id fails; without it, no query's rows can be told apart by tenant (exit 3 where any returns data)",
    )
    .addOption(
      new Option(
        '--key <columns>',
        "the columns naming a row, comma-separated, that groups' rows are compared on (repeatable: the first a query returns in full)",
      )
        .argParser(keyList)
        .default([], 'the primary keys of the tables whose columns the query returns'),
    )
    .addOption(new Option('--environment <environment>', 'the environment of the groups').choices(ENVIRONMENTS).default('Customer'))
    .option('--include-descendants', 'claims with the group’s descendants (desc), as sessions minted with include_descendants')
    .option('--statement-timeout-ms <ms>', 'how long one query may run', positiveInteger, 10_000)
    .option('--json', 'print the report as JSON')
    // A usage error (an unknown option, a missing one) is the check not running, not a leak: exit 2, not commander's 1.
    .exitOverride((error) => {
      throw error.exitCode === 0 ? error : new CommanderError(ISOLATION_EXIT.notRun, error.code, error.message);
    })
    .action(async (options: CheckCommandOptions) => {
      let result: { role: string; report: IsolationReport };
      let url: string;
      let groups: string[];
      try {
        if ((options.database === undefined) === (options.dataSource === undefined))
          throw notRun('give either --database <url> or --data-source <id>: where the check connects.');
        let target: CheckTarget;
        if (options.database !== undefined) {
          if (options.groups === undefined)
            throw notRun('--groups is required with --database: the user_group_ids to check (--groups acme,globex).');
          target = urlTarget(databaseUrl(options.database));
          groups = options.groups;
        } else {
          ({ target, groups } = await dataSourceTarget(options.dataSource!, options, output));
        }
        url = target.shownUrl;
        const statements = await readStatements(options.queries);
        const claims = await claimsOf(groups, options, output);
        result = await runCheck(target, statements, claims, options);
      } catch (error) {
        if (error instanceof CliError && error.exitCode === ISOLATION_EXIT.notRun) throw error;
        // Whatever stopped it (a missing store, an unknown group, a refused role) is reported as ever, with the check's own code.
        throw notRun(
          isExpectedFailure(error) ? (error as Error).message : `the check could not run: ${(error as Error).stack ?? String(error)}`,
        );
      }
      const context = {
        url,
        role: result.role,
        groups,
        environment: options.environment,
        tenantColumn: options.tenantColumn,
        keys: options.key,
        includeDescendants: options.includeDescendants === true,
      };
      if (options.json) printJsonReport(result.report, context, output);
      else printReport(result.report, context, output);
      const outcome = outcomeOf(result.report);
      if (outcome !== 'passed')
        throw new CliError(failureLine(result.report), outcome === 'failed' ? ISOLATION_EXIT.failed : ISOLATION_EXIT.notEstablished);
    });
}
