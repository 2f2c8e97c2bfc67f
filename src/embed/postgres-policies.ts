import { CLAIMS_SETTING } from './session-claims.js';

/**
 * The `ugs` schema: functions reading the claims withSessionClaims sets, for
 * row-level policies. Every one is NULL when no claims are set (a connection
 * outside withSessionClaims, or after its transaction), and `x = NULL` is never
 * true, so a policy written with them returns no rows rather than all rows.
 * SQL-standard bodies (PostgreSQL 14 and later) are parsed once, at creation,
 * and every operator, function and type in them is schema-qualified: neither
 * the installing session's search_path nor what a role creates in `public`
 * (every role may, on PostgreSQL 14) can swap what they compare or call, and
 * they still inline into the policy's plan (a `SET search_path` clause would
 * stop that, and change nothing in a body already parsed).
 *
 * The group-bound functions (user_group_id, subtree, prop, prop_list) read
 * what the group itself holds; viewer_prop and viewer_prop_list read the
 * viewer's view, attributes over the group's properties, which may narrow a
 * query but must never bind a policy.
 */
export function postgresPolicySql(): string {
  return `-- The functions row-level policies read the embed session's claims with (user-group-service, withSessionClaims).
-- Every operator, function and type is schema-qualified: what another role creates in public cannot stand in for them.
CREATE SCHEMA IF NOT EXISTS ugs;

-- The claims of the current transaction, or NULL when none are set.
CREATE OR REPLACE FUNCTION ugs.claims() RETURNS pg_catalog.jsonb
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN CASE WHEN pg_catalog.current_setting('${CLAIMS_SETTING}', true) OPERATOR(pg_catalog.<>) ''
    THEN pg_catalog.current_setting('${CLAIMS_SETTING}', true)::pg_catalog.jsonb END;

-- The viewing user group's id.
CREATE OR REPLACE FUNCTION ugs.user_group_id() RETURNS pg_catalog.text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN ugs.claims() OPERATOR(pg_catalog.->>) 'sub';

-- The viewer's id, when the session names one.
CREATE OR REPLACE FUNCTION ugs.viewer_id() RETURNS pg_catalog.text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN ugs.claims() OPERATOR(pg_catalog.->>) 'vid';

${propertyFunctions('prop', 'gprops', "A property of the group itself, as text (its effective properties: a viewer's attributes never change it)")}
${propertyFunctions('viewer_prop', 'props', "A property as the viewer sees it, as text (the viewer's attribute of that name over the group's property): to narrow a query, never in a policy")}
-- The viewing group and its descendants (the session's desc claim, when the group sits in a hierarchy).
CREATE OR REPLACE FUNCTION ugs.subtree() RETURNS pg_catalog.text[]
  LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
  SELECT CASE WHEN ugs.user_group_id() IS NULL THEN NULL
    ELSE ARRAY[ugs.user_group_id()] OPERATOR(pg_catalog.||)
      ARRAY(SELECT pg_catalog.jsonb_array_elements_text(ugs.claims() OPERATOR(pg_catalog.->) 'desc'))
  END;
END;

GRANT USAGE ON SCHEMA ugs TO PUBLIC;
`;
}

/** `ugs.<name>(name)` as text and `ugs.<name>_list(name)` as text[], reading the properties in the setting's `claim`. */
function propertyFunctions(name: string, claim: string, what: string): string {
  const properties = `(ugs.claims() OPERATOR(pg_catalog.->) '${claim}')`;
  return `-- ${what}; NULL when absent or null.
CREATE OR REPLACE FUNCTION ugs.${name}(name pg_catalog.text) RETURNS pg_catalog.text
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN ${properties} OPERATOR(pg_catalog.->>) name;

-- The same as a list: an array's elements, or a single value as a list of one; NULL when absent or null.
CREATE OR REPLACE FUNCTION ugs.${name}_list(name pg_catalog.text) RETURNS pg_catalog.text[]
  LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
  SELECT CASE
    WHEN v IS NULL OR pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'null' THEN NULL
    WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'array' THEN ARRAY(SELECT pg_catalog.jsonb_array_elements_text(v))
    ELSE ARRAY[v OPERATOR(pg_catalog.#>>) '{}'::pg_catalog.text[]]
  END
  FROM (SELECT ${properties} OPERATOR(pg_catalog.->) name AS v) AS prop;
END;
`;
}

/** The column types a policy compares with the session: a claim is text, cast to the column's type for the comparison. */
export const POLICY_COLUMN_TYPES = ['text', 'varchar', 'uuid', 'integer', 'bigint'] as const;
export type PolicyColumnType = (typeof POLICY_COLUMN_TYPES)[number];

/** The type a claim is read as to compare with a column of each type (varchar compares as text). */
const CLAIM_TYPE: Record<PolicyColumnType, string> = {
  text: 'pg_catalog.text',
  varchar: 'pg_catalog.text',
  uuid: 'pg_catalog.uuid',
  integer: 'pg_catalog.int4',
  bigint: 'pg_catalog.int8',
};

/** What a table's policy binds: its column, to the group's id, or to a property, or to the group's subtree. */
export interface TablePolicyOptions {
  /** The table, optionally schema-qualified (`sales.orders`). */
  table: string;
  /** The column holding the owning group's id (or the property's value). */
  column: string;
  /** The column's type (default `text`): the claim is compared as that type, by pg_catalog's `=`. */
  columnType?: PolicyColumnType;
  /** Bind the column to this property of the group itself (never a viewer's attribute) instead of the group's id. */
  property?: string;
  /** Let a group see its descendants' rows too (`column = ANY (ugs.subtree())`). */
  subtree?: boolean;
}

const PLAIN_IDENTIFIER = /^[a-z_][a-z0-9_$]*$/;

/** An identifier as SQL text: bare when PostgreSQL would read it back the same, else double-quoted. */
export function quoteIdentifier(name: string): string {
  if (name === '' || name.includes('\u0000')) throw new TypeError(`"${name}" is not an identifier`);
  return PLAIN_IDENTIFIER.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function quoteLiteral(value: string): string {
  if (value.includes('\u0000')) throw new TypeError('a property name cannot hold a NUL character');
  return `'${value.replaceAll("'", "''")}'`;
}

/** `schema.table` or `table`; a dot inside a name is written quoted (`"my.schema".orders`) and kept. */
function qualifiedName(table: string): string {
  const parts = table.match(/"(?:[^"]|"")+"|[^.]+/g) ?? [];
  if (parts.length === 0 || parts.length > 2 || parts.join('.') !== table) throw new TypeError(`"${table}" is not a table name`);
  return parts
    .map((part) => (part.startsWith('"') ? quoteIdentifier(part.slice(1, -1).replaceAll('""', '"')) : quoteIdentifier(part)))
    .join('.');
}

/** The name every policy this package writes has, so writing it again replaces it. */
export const POLICY_NAME = 'ugs_user_group_isolation';

/**
 * The statements that put a table under the session: row-level security
 * enabled and forced (so the table's owner is bound too), and one policy for
 * every command comparing the column with the session's group (or property).
 * The claim is read once per statement (`(SELECT …)`), not once per row, and
 * compared by `OPERATOR(pg_catalog.=)`: an unqualified `=` would take an
 * operator someone created in `public` whose types match the column better.
 */
export function tablePolicySql(options: TablePolicyOptions): string {
  if (options.property !== undefined && options.subtree) throw new TypeError('a policy binds a property or the subtree, not both');
  const columnType = options.columnType ?? 'text';
  if (!POLICY_COLUMN_TYPES.includes(columnType))
    throw new TypeError(`"${String(columnType)}" is not a column type a policy compares: one of ${POLICY_COLUMN_TYPES.join(', ')}`);
  const table = qualifiedName(options.table);
  const column = quoteIdentifier(options.column);
  const type = CLAIM_TYPE[columnType];
  const cast = type === 'pg_catalog.text' ? '' : `::${type}`;
  const condition = options.subtree
    ? `${column} OPERATOR(pg_catalog.=) ANY ((SELECT ugs.subtree())::${type}[])`
    : `${column} OPERATOR(pg_catalog.=) (SELECT ${options.property === undefined ? 'ugs.user_group_id()' : `ugs.prop(${quoteLiteral(options.property)})`})${cast}`;
  return `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ${POLICY_NAME} ON ${table};
CREATE POLICY ${POLICY_NAME} ON ${table}
  USING (${condition})
  WITH CHECK (${condition});
`;
}
