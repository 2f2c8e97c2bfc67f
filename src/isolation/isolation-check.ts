import type pg from 'pg';
import { bindProperties, type BindableClaims, type BoundQuery } from '../embed/property-binder.js';
import type { PolicyClaims } from '../embed/session-claims.js';
import { carriesNothing, keyText, planRows, SourceTables, type PlanOptions, type RowPlan } from './isolation-rows.js';
import { outcomeTables, readOwners, runRolledBack, type Owner } from './isolation-runs.js';
import type { SqlStatement } from './sql-statements.js';

/** A group's claims as a session minted now would carry them: what the policies read, and what the placeholders bind. */
export type GroupClaims = PolicyClaims & BindableClaims;

/** The check refuses to run as this connection (`ugs isolation-check` says why and exits 2, the check not run). */
export class IsolationCheckRefusal extends Error {
  override name = 'IsolationCheckRefusal';
}

export interface CheckOptions extends PlanOptions {
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
  /** The columns rows were compared on between groups; null when they carry none (or the query failed). */
  key: string[] | null;
  /** How each row's tenant was read: the column returned, or looked up in these tables by their key; null when it was not. */
  tenant: { column: string; lookedUpIn: string[] } | null;
  /** Rows carrying data that the groups received (a row of zeros and NULLs carries none). */
  dataRows: number;
  /** Whether every row a group received was shown to be its own or one of its subtree's; else why not. */
  crossTenant: { checked: true } | { checked: false; reason: string };
}

export interface IsolationReport {
  queries: QueryOutcome[];
  problems: Problem[];
}

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
  if (role === undefined) throw new IsolationCheckRefusal('cannot read the connected role from pg_roles.');
  const why = role.rolsuper ? 'is a superuser' : role.rolbypassrls ? 'has BYPASSRLS' : undefined;
  if (why !== undefined)
    throw new IsolationCheckRefusal(
      `refusing to check as role ${JSON.stringify(role.name)}: it ${why}, and such a role ignores row-level security policies, ` +
        'so every query would see every row and the check would prove nothing. Connect as the role the dashboard queries with.',
    );
  return role.name;
}

/**
 * Runs every statement once per group under that group's claims and once
 * with none (bound with the first bindable group's values, so that only the
 * policy can keep rows out), each in a transaction that is rolled back, and
 * says what leaked and what could not be checked. Rows are compared between
 * groups on their key and attributed to a tenant by the tenant column
 * (isolation-rows.ts), never by every column: a value that differs per run
 * (now(), a property of the session) would make every row look unique.
 */
export async function checkIsolation(
  client: pg.ClientBase,
  statements: SqlStatement[],
  groups: ReadonlyMap<string, GroupClaims>,
  options: CheckOptions,
): Promise<IsolationReport> {
  const report: IsolationReport = { queries: [], problems: [] };
  const tables = new SourceTables(options.tenantColumn);
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
      key: null,
      tenant: null,
      dataRows: 0,
      crossTenant: { checked: true },
    };
    // Each error once, with the runs that met it (null: the run with no claims).
    const errors = new Map<string, (string | null)[]>();
    const failed = (message: string, group: string | null) => errors.set(message, [...(errors.get(message) ?? []), group]);
    const rowsSeen = new Map<string, { groups: Set<string>; example: string }>();
    const notChecked: string[] = [];
    let plan: RowPlan | undefined;
    let unbound: BoundQuery | undefined;

    for (const [id, claims] of groups) {
      outcome.rows.set(id, null);
      const bound = bind(statement.text, claims);
      if ('error' in bound) {
        failed(bound.error, id);
        continue;
      }
      unbound ??= bound;
      const run = await runRolledBack(client, bound, claims, async (result) => {
        plan ??= planRows(result.fields, await tables.of(client, result.fields), options);
        return readOwners(client, result, plan);
      });
      if ('error' in run) {
        failed(run.error, id);
        continue;
      }
      outcome.rows.set(id, run.raw.length);
      const { plan: runPlan, data, owners } = run.inspected!;
      outcome.dataRows += data.length;
      const { key } = runPlan;
      for (const i of key === null ? [] : data) {
        const rowKey = keyText(key!.columns.map((c) => run.raw[i]![c] ?? null));
        const seen = rowsSeen.get(rowKey) ?? { groups: new Set<string>(), example: example(run.parsed[i]) };
        seen.groups.add(id);
        rowsSeen.set(rowKey, seen);
      }
      if (owners === null) continue;
      if ('error' in owners) {
        notChecked.push(`reading ${options.tenantColumn} for ${id} failed: ${owners.error}`);
        continue;
      }
      const own = new Set([id, ...(options.includeDescendants ? (claims.desc ?? []) : [])]);
      const isForeign = (owner: Owner) => owner.tenant === null || !own.has(owner.tenant);
      const lost = owners.filter((found) => found === undefined).length;
      if (lost > 0)
        notChecked.push(
          `${rowCount(lost)} that ${id} received could not be found by their key in ${outcomeTables(runPlan)} (a NULL key from an ` +
            'outer join, or a row the query wrote itself), so whose they are is not known',
        );
      const foreign = owners.flatMap((found) => found?.find(isForeign) ?? []);
      if (foreign.length > 0) {
        const first = foreign[0]!;
        problem(
          'foreign_tenant',
          [id],
          `${id} received ${rowCount(foreign.length)} whose ${options.tenantColumn} is not ${id}` +
            `${options.includeDescendants ? ' or one of its descendants' : ''} (e.g. ${options.tenantColumn} = ${example(first.tenant)}` +
            `${first.via === null ? '' : `, looked up in ${first.via}`}): the policy compares another column or a property that does not ` +
            "hold the group's id, or the table has no policy and the query's own filter let them through",
        );
      }
    }

    if (unbound !== undefined) {
      const run = await runRolledBack(client, unbound);
      if ('error' in run) failed(run.error, null);
      else {
        outcome.rowsWithoutClaims = run.raw.length;
        const leaked = run.parsed.filter((row) => !carriesNothing(row));
        if (leaked.length > 0)
          problem(
            'rows_without_claims',
            [],
            `returned ${rowCount(leaked.length)} with no claims set (e.g. ${example(leaked[0])}): a table it reads has no policy ` +
              'binding it to the session, or row-level security is not enabled and forced on it',
          );
      }
    }

    const keyNames = plan?.key?.names.join(', ');
    for (const shared of sharedRows(rowsSeen, groups, options.includeDescendants))
      problem(
        'shared_row',
        shared.groups,
        `returned the same ${rowCount(shared.count)} (by ${keyNames}) to ${shared.groups.join(' and ')} (e.g. ${shared.example}): ` +
          "one group's rows reached another",
      );

    const groupsFailed = new Set<string>();
    for (const [message, failing] of errors) {
      const ids = failing.filter((id) => id !== null);
      ids.forEach((id) => groupsFailed.add(id));
      const noClaims = failing.length > ids.length;
      const who = ids.length === 0 ? 'with no claims' : `for ${ids.join(', ')}${noClaims ? ' and with no claims' : ''}`;
      problem('query_error', ids, `failed ${who}: ${message}`);
    }

    if (plan !== undefined) {
      outcome.key = plan.key?.names ?? null;
      if (plan.tenant.kind === 'returned') outcome.tenant = { column: options.tenantColumn!, lookedUpIn: [] };
      if (plan.tenant.kind === 'lookup')
        outcome.tenant = { column: options.tenantColumn!, lookedUpIn: plan.tenant.lookups.map((l) => l.table.name) };
      if (plan.tenant.kind === 'none' && outcome.dataRows > 0) notChecked.unshift(plan.tenant.reason);
    }
    if (groupsFailed.size > 0) notChecked.unshift(`it failed for ${[...groupsFailed].join(', ')}`);
    if (notChecked.length > 0) outcome.crossTenant = { checked: false, reason: notChecked.join('; ') };
    report.queries.push(outcome);
  }
  return report;
}

function bind(sql: string, claims: GroupClaims): BoundQuery | { error: string } {
  try {
    return bindProperties(sql, claims, 'postgres');
  } catch (error) {
    return { error: `cannot bind its placeholders: ${(error as Error).message}` };
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
    const entry = shared.get(key) ?? { groups: leaked, count: 0, example: row };
    entry.count++;
    shared.set(key, entry);
  }
  return [...shared.values()];
}

function rowCount(n: number): string {
  return n === 1 ? '1 row' : `${n} rows`;
}

function example(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > EXAMPLE_MAX ? `${text.slice(0, EXAMPLE_MAX - 1)}…` : text;
}
