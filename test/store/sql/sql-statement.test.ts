import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statement, toPositional } from '../../../src/store/sql/sql-statement.js';

describe('a statement written once', () => {
  it('numbers @name parameters for PostgreSQL, a name used twice keeping its number', () => {
    assert.deepEqual(toPositional('UPDATE t SET a = @a WHERE id = @id AND a <> @a'), {
      text: 'UPDATE t SET a = $1 WHERE id = $2 AND a <> $1',
      names: ['a', 'id'],
    });
  });

  it('leaves quoted literals and identifiers alone', () => {
    assert.deepEqual(toPositional(`SELECT '@not', "@col", 'it''s @x' FROM t WHERE b = @b`), {
      text: `SELECT '@not', "@col", 'it''s @x' FROM t WHERE b = $1`,
      names: ['b'],
    });
  });

  it('keeps one text for both databases, or one each', () => {
    assert.deepEqual(statement('test_once', 'SELECT 1').text, { sqlite: 'SELECT 1', postgres: 'SELECT 1' });
    assert.deepEqual(statement('test_each', { sqlite: 'SELECT 1', postgres: 'SELECT 2' }).text, {
      sqlite: 'SELECT 1',
      postgres: 'SELECT 2',
    });
    assert.deepEqual(statement('test_built', (dialect) => `SELECT '${dialect}'`).text, {
      sqlite: "SELECT 'sqlite'",
      postgres: "SELECT 'postgres'",
    });
  });

  it('refuses a second statement of the same name', () => {
    statement('test_twice', 'SELECT 1');
    assert.throws(() => statement('test_twice', 'SELECT 2'), /Two SQL statements are named test_twice/);
  });
});
