import type pg from 'pg';

/**
 * What `ugs isolation-check` knows about the rows a query returns: which
 * columns name a row (so that rows two groups received can be compared
 * whatever else they carry: now(), a property of the session), and whose
 * each row is (the tenant column returned, or looked up by a table's primary
 * key the query returned). The catalog tells, from the table and column each
 * result column comes from (PostgreSQL reports them for plain column
 * references, through subqueries and CTEs; not through views, set operations
 * or expressions).
 */

/** A value as PostgreSQL prints it (the type's text output), or NULL: what rows are compared and looked up by. */
export type RawValue = string | null;

/** A table a query's columns come from. */
export interface SourceTable {
  id: number;
  /** Schema-qualified and quoted, as SQL takes it. */
  name: string;
  /** Its primary key's columns in key order; none without one. */
  key: { attnum: number; name: string; quoted: string; type: string }[];
  /** The tenant column, quoted, when the table has one of that name. */
  tenant: string | null;
  /** Its number among the table's columns, to know it in a result under another name. */
  tenantAttnum: number | null;
}

/** A table the rows are attributed through: its key's columns in the result, in key order. */
export interface Lookup {
  table: SourceTable;
  columns: number[];
}

export interface RowPlan {
  /** The result columns naming a row (`--key`, else every primary key the query returns); null: the rows carry none. */
  key: { columns: number[]; names: string[] } | null;
  /** How each row's tenant is known: the column returned, looked up by a key, or not at all (with why). */
  tenant: { kind: 'returned'; column: number } | { kind: 'lookup'; lookups: Lookup[] } | { kind: 'none'; reason: string };
}

export interface PlanOptions {
  tenantColumn?: string;
  /** Columns naming a row, alternatives in order: the first that a query returns in full names its rows. */
  keys: string[][];
}

/** A type parser that keeps PostgreSQL's text: comparing and looking up by it is exact (timestamps to the microsecond, numerics). */
export const RAW_TYPES: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

const CATALOG_SQL = `
SELECT c.oid::text AS id, format('%I.%I', n.nspname, c.relname) AS name,
  coalesce((
    SELECT json_agg(json_build_object('attnum', a.attnum, 'name', a.attname, 'quoted', format('%I', a.attname),
      'type', format_type(a.atttypid, NULL)) ORDER BY k.position)
    FROM pg_catalog.pg_index i
    CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
    JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
    WHERE i.indrelid = c.oid AND i.indisprimary), '[]') AS key,
  t.tenant, t.tenant_attnum AS "tenantAttnum"
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN LATERAL (
  SELECT format('%I', a.attname) AS tenant, a.attnum AS tenant_attnum FROM pg_catalog.pg_attribute a
  WHERE a.attrelid = c.oid AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped
) t ON true
WHERE c.oid = ANY ($1::oid[])`;

/** The catalog's description of the tables queries read from, each read once. */
export class SourceTables {
  private readonly known = new Map<number, SourceTable>();

  constructor(private readonly tenantColumn: string | undefined) {}

  /** The tables `fields` come from. */
  async of(client: pg.ClientBase, fields: pg.FieldDef[]): Promise<SourceTable[]> {
    const ids = [...new Set(fields.map((field) => field.tableID).filter((id) => id !== 0))];
    const missing = ids.filter((id) => !this.known.has(id));
    if (missing.length > 0) {
      const { rows } = await client.query<Omit<SourceTable, 'id'> & { id: string }>(CATALOG_SQL, [
        missing.map(String),
        this.tenantColumn ?? null,
      ]);
      for (const row of rows) this.known.set(Number(row.id), { ...row, id: Number(row.id) });
    }
    return ids.flatMap((id) => this.known.get(id) ?? []);
  }
}

/** Where each row's key and tenant are, for a query returning `fields` from `tables`. */
export function planRows(fields: pg.FieldDef[], tables: SourceTable[], options: PlanOptions): RowPlan {
  const column = (name: string) => fields.findIndex((field) => field.name === name);
  const keyOf = (table: SourceTable) => {
    const columns = table.key.map((part) => fields.findIndex((f) => f.tableID === table.id && f.columnID === part.attnum));
    return table.key.length > 0 && columns.every((i) => i >= 0) ? columns : undefined;
  };

  let key: RowPlan['key'] = null;
  const named = options.keys.map((names) => names.map(column)).find((columns) => columns.every((i) => i >= 0));
  const primary = [...new Set(tables.flatMap((table) => keyOf(table) ?? []))].sort((a, b) => a - b);
  const columns = named ?? (primary.length > 0 ? primary : undefined);
  if (columns !== undefined) key = { columns, names: columns.map((i) => fields[i]!.name) };

  const tenant = options.tenantColumn;
  if (tenant === undefined)
    return {
      key,
      tenant: {
        kind: 'none',
        reason:
          'no --tenant-column, so whose rows these are cannot be told (only whether two groups received the same one): ' +
          "give --tenant-column, the column naming each row's group",
      },
    };
  // By its name, or by where it comes from (the tenant column under another name).
  const returned =
    column(tenant) >= 0 ? column(tenant) : fields.findIndex((f) => tables.some((t) => t.id === f.tableID && t.tenantAttnum === f.columnID));
  if (returned >= 0) return { key, tenant: { kind: 'returned', column: returned } };
  const lookups = tables.flatMap((table) => {
    const columns = table.tenant === null ? undefined : keyOf(table);
    return columns === undefined ? [] : [{ table, columns }];
  });
  if (lookups.length > 0) return { key, tenant: { kind: 'lookup', lookups } };
  return {
    key,
    tenant: {
      kind: 'none',
      reason:
        `its rows carry no ${tenant} and no primary key of a table that has one (${describeSources(tables, tenant)}), ` +
        `so whose rows they are cannot be told: return ${tenant}, or the primary key of the table it reads`,
    },
  };
}

function describeSources(tables: SourceTable[], tenant: string): string {
  if (tables.length === 0) return 'only computed values, such as an aggregate';
  return tables
    .map((t) =>
      t.tenant === null ? `${t.name} has no ${tenant}` : `${t.name}'s ${t.key.length === 0 ? 'has no primary key' : 'key is not returned'}`,
    )
    .join('; ');
}

/**
 * The tenant of each of `rows` by `lookup`: the rows of its table whose key
 * the query returned, read in the run's own transaction (the same claims and
 * role, so the same rows are visible), keyed by `keyText` of the key's values.
 */
export async function lookUpTenants(client: pg.ClientBase, lookup: Lookup, rows: RawValue[][]): Promise<Map<string, RawValue>> {
  const { table, columns } = lookup;
  const keys = new Map<string, RawValue[]>();
  for (const row of rows) {
    const key = columns.map((i) => row[i] ?? null);
    if (key.every((value) => value !== null)) keys.set(keyText(key), key);
  }
  const found = new Map<string, RawValue>();
  if (keys.size === 0) return found;
  const parts = table.key;
  const text: pg.QueryArrayConfig = {
    // Cast to each column's type, so that the primary key's index finds them.
    text:
      `SELECT ${parts.map((p) => `${p.quoted}::text`).join(', ')}, ${table.tenant}::text FROM ${table.name} ` +
      `WHERE (${parts.map((p) => p.quoted).join(', ')}) IN (SELECT * FROM unnest(${parts.map((p, i) => `$${i + 1}::text[]::${p.type}[]`).join(', ')}))`,
    values: parts.map((_, i) => [...keys.values()].map((key) => key[i])),
    rowMode: 'array',
    types: RAW_TYPES,
  };
  const result = await client.query<RawValue[]>(text);
  for (const row of result.rows) found.set(keyText(row.slice(0, parts.length)), row[parts.length] ?? null);
  return found;
}

/** The values of a row's key as one string, to compare keys by. */
export function keyText(values: RawValue[]): string {
  return JSON.stringify(values);
}

/**
 * A row of nothing but NULL, zero, false, '' and empty arrays: what an aggregate
 * returns over no rows (`count(*)` is 0, `sum` NULL or its coalesced 0). It
 * shows no data, so it is neither a leak without claims nor a row two groups
 * share, and needs no tenant; an aggregate over real rows carries a non-zero value.
 */
export function carriesNothing(row: unknown[]): boolean {
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
