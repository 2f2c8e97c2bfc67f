/** The two databases a store runs on. */
export type Dialect = 'sqlite' | 'postgres';

/** A statement's parameters by name: `@name` in its text. */
export type SqlParameters = Readonly<Record<string, unknown>>;

/**
 * A statement written once for both databases: SQL with `@name` parameters
 * (SQLite binds them as they are; PostgreSQL's are numbered on first use), or
 * one text per dialect where the SQL really differs. `Row` is what a row it
 * returns looks like; both stores return the same shapes (see ../rows.ts).
 * An empty text is a step one database needs and the other does not (a lock
 * SQLite, one writer at a time, never takes): it runs nothing and returns no row.
 */
export interface SqlStatement<Row = unknown> {
  /** Unique per statement: PostgreSQL prepares it under this name once per connection, SQLite once per store. */
  readonly name: string;
  readonly text: Readonly<Record<Dialect, string>>;
  /** Never set: carries `Row` for the compiler. */
  readonly row?: Row;
}

const names = new Set<string>();

/** Appended to an ORDER BY column: text compared byte by byte, as SQLite does (PostgreSQL's default collation may order otherwise). */
export const BYTEWISE: Readonly<Record<Dialect, string>> = { sqlite: '', postgres: ' COLLATE "C"' };

/**
 * Declares a statement: one text, one per dialect, or one built for each
 * dialect from a few differing fragments (`(dialect) => text`). A second
 * statement of the same name is a mistake found when the module loads.
 */
export function statement<Row = unknown>(
  name: string,
  text: string | Readonly<Record<Dialect, string>> | ((dialect: Dialect) => string),
): SqlStatement<Row> {
  if (names.has(name)) throw new Error(`Two SQL statements are named ${name}.`);
  names.add(name);
  if (typeof text === 'function') return { name, text: { sqlite: text('sqlite'), postgres: text('postgres') } };
  return { name, text: typeof text === 'string' ? { sqlite: text, postgres: text } : text };
}

/** A statement's PostgreSQL text with its `@name` parameters numbered, and the names in their numbers' order. */
export interface PositionalText {
  text: string;
  names: string[];
}

/**
 * Numbers `@name` parameters as `$1`, `$2`, ... (a name used twice keeps its
 * number), leaving quoted literals and identifiers alone.
 */
export function toPositional(text: string): PositionalText {
  const order: string[] = [];
  const numbered = text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|@([A-Za-z_][A-Za-z0-9_]*)/g, (match, name: string | undefined) => {
    if (name === undefined) return match;
    const at = order.indexOf(name);
    return `$${at === -1 ? order.push(name) : at + 1}`;
  });
  return { text: numbered, names: order };
}
