import pg from 'pg';

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');

/** BIGINT as a number: every BIGINT here (ids, team ids, sequences, counts) stays far below 2^53. */
function parseInt8(text: string): number {
  const value = Number(text);
  // Refuse instead of rounding: a rounded id would name another row.
  if (!Number.isSafeInteger(value))
    throw new RangeError(`PostgreSQL returned the BIGINT ${text}, beyond what a JavaScript number holds exactly.`);
  return value;
}

/** TIMESTAMPTZ as ISO-8601 text to the millisecond, as the domain and the SQLite store hold times. */
function parseIsoTimestamp(text: string): string {
  return (parseTimestamptz(text) as Date).toISOString();
}

/**
 * The store pool's type parsers: rows arrive in the shapes SQLite gives, so one mapper (../rows.ts) serves both
 * stores. Per pool, not `pg.types.setTypeParser`, which would change every other pool in the process, a host
 * application's included.
 */
export const STORE_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === pg.types.builtins.INT8) return parseInt8;
    if (format !== 'binary' && oid === pg.types.builtins.TIMESTAMPTZ) return parseIsoTimestamp;
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};
