import type pg from 'pg';
import type { BoundQuery } from '../embed/property-binder.js';
import { setSessionClaims, type PolicyClaims } from '../embed/session-claims.js';
import { carriesNothing, keyText, lookUpTenants, RAW_TYPES, type RawValue, type RowPlan } from './isolation-rows.js';

/**
 * One run of a query for `ugs isolation-check`: in a transaction of its own,
 * under a group's claims or none, rolled back; and, in that transaction, whose
 * each row it returned is (isolation-rows.ts).
 */

export interface Run {
  fields: pg.FieldDef[];
  /** The rows as PostgreSQL printed them, and as the driver parses them (for the examples shown). */
  raw: RawValue[][];
  parsed: unknown[][];
}

/** A data row's tenant, and where it was read: the column returned (null), or the table it was looked up in by its key. */
export interface Owner {
  tenant: RawValue;
  via: string | null;
}

/**
 * What a group's run tells besides its rows: the plan, the indexes of its data
 * rows, and each one's tenants (undefined: found nowhere; null: the plan reads
 * none), or why they could not be read.
 */
export interface Owners {
  plan: RowPlan;
  data: number[];
  owners: (Owner[] | undefined)[] | { error: string } | null;
}

/** The data rows of a run and, where the plan can tell, each one's tenants (one per table it was looked up in). */
export async function readOwners(client: pg.ClientBase, result: Run, plan: RowPlan): Promise<Owners> {
  const data = result.parsed.flatMap((row, i) => (carriesNothing(row) ? [] : [i]));
  const rows = data.map((i) => result.raw[i]!);
  const { tenant } = plan;
  if (tenant.kind === 'none') return { plan, data, owners: null };
  if (tenant.kind === 'returned') return { plan, data, owners: rows.map((row) => [{ tenant: row[tenant.column] ?? null, via: null }]) };
  try {
    // One after another: a client runs one query at a time.
    const found: Map<string, RawValue>[] = [];
    for (const lookup of tenant.lookups) found.push(await lookUpTenants(client, lookup, rows));
    const owners = rows.map((row) => {
      const values = tenant.lookups.flatMap((lookup, t) => {
        const key = keyText(lookup.columns.map((c) => row[c] ?? null));
        const via = `${lookup.table.name} by ${lookup.table.key.map((k) => k.name).join(', ')}`;
        return found[t]!.has(key) ? [{ tenant: found[t]!.get(key)!, via }] : [];
      });
      return values.length === 0 ? undefined : values;
    });
    return { plan, data, owners };
  } catch (error) {
    return { plan, data, owners: { error: (error as Error).message } };
  }
}

/** The tables a plan looks tenants up in, for a message. */
export function outcomeTables(plan: RowPlan): string {
  return plan.tenant.kind === 'lookup' ? plan.tenant.lookups.map((l) => l.table.name).join(' or ') : 'the tables it reads';
}

/**
 * BEGIN, the claims (when given), the query, `inspect` of what it returned
 * (in the same transaction, under the same claims), ROLLBACK: nothing a
 * query writes is kept, and no claims outlive the run.
 */
export async function runRolledBack<T>(
  client: pg.ClientBase,
  query: BoundQuery,
  claims?: PolicyClaims,
  inspect?: (run: Run) => Promise<T>,
): Promise<(Run & { inspected: T | undefined }) | { error: string }> {
  await client.query('BEGIN');
  try {
    if (claims !== undefined) await setSessionClaims(client, claims);
    // The extended protocol runs one statement, whatever the text holds.
    const config: pg.QueryArrayConfig & { queryMode: 'extended' } = {
      text: query.text,
      values: query.values,
      rowMode: 'array',
      queryMode: 'extended',
      types: RAW_TYPES,
    };
    let result: pg.QueryArrayResult<RawValue[]>;
    try {
      result = await client.query<RawValue[]>(config);
    } catch (error) {
      return { error: (error as Error).message };
    }
    const parsers = result.fields.map((field) => client.getTypeParser(field.dataTypeID, 'text') as (text: string) => unknown);
    const run: Run = {
      fields: result.fields,
      raw: result.rows,
      parsed: result.rows.map((row) => row.map((value, i) => (value === null ? null : parsers[i]!(value)))),
    };
    return { ...run, inspected: inspect === undefined ? undefined : await inspect(run) };
  } finally {
    await client.query('ROLLBACK');
  }
}
