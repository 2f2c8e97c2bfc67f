import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { STORE_TYPES } from '../../src/store/postgres/postgres-types.js';

const { INT8, TIMESTAMPTZ, TEXT } = pg.types.builtins;

describe("the PostgreSQL store pool's type parsers", () => {
  it('reads BIGINT as a number, and refuses one a number cannot hold exactly instead of rounding it', () => {
    const parse = STORE_TYPES.getTypeParser(INT8, 'text') as (text: string) => unknown;
    assert.equal(parse('42'), 42);
    assert.equal(parse('9007199254740991'), Number.MAX_SAFE_INTEGER);
    assert.throws(() => parse('9007199254740993'), RangeError);
  });

  it('reads TIMESTAMPTZ as the ISO-8601 text, to the millisecond in UTC, that SQLite holds', () => {
    const parse = STORE_TYPES.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown;
    assert.equal(parse('2026-05-01 12:34:56.789123+02'), '2026-05-01T10:34:56.789Z');
    assert.equal(parse('2026-05-01 00:00:00+00'), '2026-05-01T00:00:00.000Z');
  });

  it("leaves every other type, and every other pool in the process, to pg's own parsers", () => {
    assert.equal(STORE_TYPES.getTypeParser(TEXT, 'text'), pg.types.getTypeParser(TEXT, 'text'));
    assert.equal((pg.types.getTypeParser(INT8, 'text') as (text: string) => unknown)('42'), '42');
    assert.ok((pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown)('2026-05-01 00:00:00+00') instanceof Date);
  });
});
