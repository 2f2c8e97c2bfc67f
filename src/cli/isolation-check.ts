import type pg from 'pg';
import { bindProperties, type BindableClaims, type BoundQuery } from '../embed/property-binder.js';
import { setSessionClaims, type PolicyClaims } from '../embed/session-claims.js';
import { CliError } from './run-command.js';
import type { SqlStatement } from './sql-statements.js';

/** A group's claims as a session minted now would carry them: what the policies read, and what the placeholders bind. */
export type GroupClaims = PolicyClaims & BindableClaims;

export interface CheckOptions {
  /** The column naming each row's group: a row of another group is a failure. */
  tenantColumn?: string;
  /** The claims carry each group's descendants (desc): their rows are the group's too. */
  includeDescendants: boolean;
}

/** Why a query fails the check. */
export type ProblemKind = 'rows_without_claims' | 'foreign_tenant' | 'shared_row' | 'query_error';

export interface Problem {
  query: number;
  line: number;
  firstLine: string;
  kind: ProblemKind;
  /** The groups concerned; none for what the run with no claims returned. */
  groups: string[];
  message: string;
}

export interface QueryOutcome {
  query: number;
  line: number;
  firstLine: string;
  /** Rows each group's run returned; null where it failed. */
  rows: Map<string, number | null>;
  /** Rows the run with no claims returned; null where it failed or could not be bound. */
  rowsWithoutClaims: number | null;
  /** Whether the rows carried the tenant column, so that it was compared (false without --tenant-column). */
  tenantChecked: boolean;
}

export interface IsolationReport {
  queries: QueryOutcome[];
  problems: Problem[];
}

type Run = { fields: string[]; rows: unknown[][] } | { error: string };

const EXAMPLE_MAX = 120;

/**
 * Refuses a connection whose role row-level security does not bind: a
 * superuser or a role with BYPASSRLS sees every row whatever the policies
 * say, so every query would pass or fail for the wrong reason. Returns the
 * role's name.
 */
export async function refuseUnboundRole(client: pg.ClientBase): Promise<string> {
  const { rows } = await client.query<{ name: string; rolsuper: boolean; rolbypassrls: boolean }>(
    'SELECT current_user AS name, r.rolsuper, r.rolbypassrls FROM pg_catalog.pg_roles r WHERE r.rolname = current_user',
  );
  const role = rows[0];
  if (role === undefined) throw new CliError('cannot read the connected role from pg_roles.');
  const why = role.rolsuper ? 'is a superuser' : role.rolbypassrls ? 'has BYPASSRLS' : undefined;
  if (why !== undefined)
    throw new CliError(
      `refusing to check as role ${JSON.stringify(role.name)}: it ${why}, and such a role ignores row-level security policies, ` +
        'so every query would see every row and the check would prove nothing. Connect as the role the dashboard queries with.',
    );
  return role.name;
}

/**
 * Runs every statement once per group under that group's claims and once
 * with none (bound with the first bindable group's values, so that only the
 * policy can keep rows out), each in a transaction that is rolled back, and
 * says what leaked.
 */
export async function checkIsolation(
  client: pg.ClientBase,
  statements: SqlStatement[],
  groups: ReadonlyMap<string, GroupClaims>,
  options: CheckOptions,
): Promise<IsolationReport> {
  const report: IsolationReport = { queries: [], problems: [] };
  for (const statement of statements) {
    const problem = (kind: ProblemKind, groupIds: string[], message: string) =>
      report.problems.push({
        query: statement.number,
        line: statement.line,
        firstLine: statement.firstLine,
        kind,
        groups: groupIds,
        message,
      });
    const outcome: QueryOutcome = {
      query: statement.number,
      line: statement.line,
      firstLine: statement.firstLine,
      rows: new Map(),
      rowsWithoutClaims: null,
      tenantChecked: false,
    };
    // Each error once, with the runs that met it (null: the run with no claims).
    const errors = new Map<string, (string | null)[]>();
    const failed = (message: string, group: string | null) => errors.set(message, [...(errors.get(message) ?? []), group]);
    const rowsSeen = new Map<string, { groups: Set<string>; example: string }>();
    let unbound: BoundQuery | undefined;

    for (const [id, claims] of groups) {
      outcome.rows.set(id, null);
      const bound = bind(statement.text, claims);
      if ('error' in bound) {
        failed(bound.error, id);
        continue;
      }
      unbound ??= bound;
      const run = await runRolledBack(client, bound, claims);
      if ('error' in run) {
        failed(run.error, id);
        continue;
      }
      outcome.rows.set(id, run.rows.length);
      const column = options.tenantColumn === undefined ? -1 : run.fields.indexOf(options.tenantColumn);
      if (column >= 0) {
        outcome.tenantChecked = true;
        const own = new Set([id, ...(options.includeDescendants ? (claims.desc ?? []) : [])]);
        const foreign = run.rows.filter((row) => row[column] === null || !own.has(String(row[column])));
        if (foreign.length > 0)
          problem(
            'foreign_tenant',
            [id],
            `${id} received ${rowCount(foreign.length)} whose ${options.tenantColumn} is not ${id}` +
              `${options.includeDescendants ? ' or one of its descendants' : ''} (e.g. ${options.tenantColumn} = ${example(foreign[0]![column])}): ` +
              "the policy compares another column, or a property that does not hold the group's id",
          );
      }
      for (const row of run.rows) {
        if (carriesNothing(row)) continue;
        const key = JSON.stringify(row);
        const seen = rowsSeen.get(key) ?? { groups: new Set<string>(), example: key };
        seen.groups.add(id);
        rowsSeen.set(key, seen);
      }
    }

    if (unbound !== undefined) {
      const run = await runRolledBack(client, unbound);
      if ('error' in run) failed(run.error, null);
      else {
        outcome.rowsWithoutClaims = run.rows.length;
        const leaked = run.rows.filter((row) => !carriesNothing(row));
        if (leaked.length > 0)
          problem(
            'rows_without_claims',
            [],
            `returned ${rowCount(leaked.length)} with no claims set (e.g. ${example(leaked[0])}): a table it reads has no policy ` +
              'binding it to the session, or row-level security is not enabled and forced on it',
          );
      }
    }

    for (const shared of sharedRows(rowsSeen, groups, options.includeDescendants))
      problem(
        'shared_row',
        shared.groups,
        `returned the same ${rowCount(shared.count)} to ${shared.groups.join(' and ')} (e.g. ${shared.example}): one group's rows reached ` +
          'another (or the query returns nothing that tells groups apart, as an aggregate may)',
      );

    for (const [message, failing] of errors) {
      const ids = failing.filter((id) => id !== null);
      const noClaims = failing.length > ids.length;
      const who = ids.length === 0 ? 'with no claims' : `for ${ids.join(', ')}${noClaims ? ' and with no claims' : ''}`;
      problem('query_error', ids, `failed ${who}: ${message}`);
    }
    report.queries.push(outcome);
  }
  return report;
}

/**
 * A row of nothing but NULL, zero, false, '' and empty arrays: what an aggregate
 * returns over no rows (`count(*)` is 0, `sum` NULL or its coalesced 0). It
 * shows no data, so it is neither a leak without claims nor a row two groups
 * share; an aggregate over real rows carries a non-zero value and is judged.
 */
function carriesNothing(row: unknown[]): boolean {
  return row.every(
    (value) =>
      value === null ||
      value === false ||
      value === 0 ||
      value === '' ||
      (typeof value === 'string' && /^-?0*(\.0*)?$/.test(value)) ||
      (Array.isArray(value) && value.length === 0),
  );
}

function bind(sql: string, claims: GroupClaims): BoundQuery | { error: string } {
  try {
    return bindProperties(sql, claims, 'postgres');
  } catch (error) {
    return { error: `cannot bind its placeholders: ${(error as Error).message}` };
  }
}

/** BEGIN, the claims (when given), the query, ROLLBACK: nothing a query writes is kept, and no claims outlive the run. */
async function runRolledBack(client: pg.ClientBase, query: BoundQuery, claims?: PolicyClaims): Promise<Run> {
  await client.query('BEGIN');
  try {
    if (claims !== undefined) await setSessionClaims(client, claims);
    // The extended protocol runs one statement, whatever the text holds.
    const config: pg.QueryArrayConfig & { queryMode: 'extended' } = {
      text: query.text,
      values: query.values,
      rowMode: 'array',
      queryMode: 'extended',
    };
    const result = await client.query(config);
    return { fields: result.fields.map((field) => field.name), rows: result.rows };
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    await client.query('ROLLBACK');
  }
}

/**
 * The rows two groups both received, gathered by the groups that received
 * them. With descendants, a group and one in its subtree share rows
 * rightly (the parent sees its child's): only groups whose subtrees are
 * apart count.
 */
function sharedRows(
  rowsSeen: Map<string, { groups: Set<string>; example: string }>,
  groups: ReadonlyMap<string, GroupClaims>,
  includeDescendants: boolean,
): { groups: string[]; count: number; example: string }[] {
  const subtree = (id: string) => new Set([id, ...(includeDescendants ? (groups.get(id)?.desc ?? []) : [])]);
  const apart = (a: string, b: string) => ![...subtree(a)].some((id) => subtree(b).has(id));
  const shared = new Map<string, { groups: string[]; count: number; example: string }>();
  for (const { groups: received, example: row } of rowsSeen.values()) {
    const ids = [...received];
    const leaked = ids.filter((a) => ids.some((b) => a !== b && apart(a, b)));
    if (leaked.length < 2) continue;
    const key = leaked.join('\n');
    const entry = shared.get(key) ?? { groups: leaked, count: 0, example: shorten(row) };
    entry.count++;
    shared.set(key, entry);
  }
  return [...shared.values()];
}

function rowCount(n: number): string {
  return n === 1 ? '1 row' : `${n} rows`;
}

function example(value: unknown): string {
  return shorten(JSON.stringify(value) ?? String(value));
}

function shorten(text: string): string {
  return text.length > EXAMPLE_MAX ? `${text.slice(0, EXAMPLE_MAX - 1)}…` : text;
}
