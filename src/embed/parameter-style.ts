import type { SqlDialect } from './sql-lexicon.js';

export type Scalar = string | number | boolean | null;

/** How one dialect writes bound parameters, and the values it collects for them (one instance per query). */
export interface ParameterStyle {
  /** The text for a scalar placeholder. */
  scalar(name: string, value: Scalar): string;
  /** The text replacing `IN {{ name }}` (or `NOT IN ...` when negated). */
  list(name: string, items: readonly Scalar[], negated: boolean): string;
  readonly values: (Scalar | readonly Scalar[])[];
}

/** PostgreSQL: numbered parameters; a variable used twice reuses its number; a list is one array parameter. */
function postgres(): ParameterStyle {
  const values: (Scalar | readonly Scalar[])[] = [];
  const numbers = new Map<string, number>();
  const numberOf = (key: string, value: Scalar | readonly Scalar[]): number => {
    let n = numbers.get(key);
    if (n === undefined) {
      n = values.push(value);
      numbers.set(key, n);
    }
    return n;
  };
  return {
    values,
    scalar: (name, value) => `$${numberOf(`scalar:${name}`, value)}`,
    // An empty array matches nothing with = ANY and everything with <> ALL, as IN () and NOT IN () would.
    list: (name, items, negated) => `${negated ? '<> ALL' : '= ANY'}($${numberOf(`list:${name}`, items)})`,
  };
}

/** better-sqlite3 binds no booleans; SQLite itself stores TRUE and FALSE as 1 and 0. */
function sqliteValue(value: Scalar): Exclude<Scalar, boolean> {
  return typeof value === 'boolean' ? Number(value) : value;
}

/** SQLite: `?` per occurrence, values in order; a list is one `?` per item (SQLite accepts an empty `IN ()`). */
function sqlite(): ParameterStyle {
  const values: Scalar[] = [];
  return {
    values,
    scalar: (_name, value) => {
      values.push(sqliteValue(value));
      return '?';
    },
    list: (_name, items, negated) => {
      for (const item of items) values.push(sqliteValue(item));
      return `${negated ? 'NOT IN' : 'IN'} (${items.map(() => '?').join(', ')})`;
    },
  };
}

export const PARAMETER_STYLES: Record<SqlDialect, () => ParameterStyle> = { postgres, sqlite };
