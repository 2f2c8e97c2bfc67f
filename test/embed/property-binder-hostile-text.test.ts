import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { bindProperties, EmbedBindingError, type BindableClaims, type SqlDialect } from 'user-group-service/embed';
import SqliteDatabase from 'better-sqlite3';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/**
 * Issue 26's binder injections: quotes, NUL and Unicode look-alikes of quote
 * characters and of `{{`/`}}`. In a property value they never reach the SQL
 * text; in the SQL text they never make a placeholder, nor hide one from the
 * checks that a database would read differently.
 */

const DIALECTS = ['postgres', 'sqlite'] as const;

/** Values an attacker who can set a group's properties might try, each one a way out of a literal or into a placeholder. */
const HOSTILE = [
  "x' OR '1'='1",
  "x'; DROP TABLE orders; --",
  'x" OR "1"="1',
  "x\\' OR 1=1 --",
  "x\u0000' OR 1=1 --",
  '\u0000',
  'x\uFF07 OR \uFF071\uFF07=\uFF071', // FULLWIDTH APOSTROPHE
  'x\u2018 OR \u20181\u2019=\u20191', // LEFT and RIGHT SINGLE QUOTATION MARK
  'x\u201C OR \u201D1\u201D=\u201D1', // double quotation marks
  'x\u02BC OR \u02BC1\u02BC=\u02BC1', // MODIFIER LETTER APOSTROPHE
  'x\u2032 OR 1=1', // PRIME
  '{{ tier }}',
  '\uFF5B\uFF5B tier \uFF5D\uFF5D', // FULLWIDTH CURLY BRACKETS
  '$1',
  '?1',
  ':tier',
  '*/ OR 1=1 /*',
  '$$ OR 1=1 $$',
];

const claimsWith = (region: string): BindableClaims => ({ sub: 'acme', tid: 7, props: { region, tier: 2, regions: [region, 'eu'] } });
const SQL = 'SELECT id FROM orders WHERE region = {{ region }} AND tier >= {{ tier }} OR region IN {{ regions }}';

function refused(sql: string, dialect: SqlDialect, code: string): void {
  assert.throws(
    () => bindProperties(sql, claimsWith('eu'), dialect),
    (e: unknown) => e instanceof EmbedBindingError && e.code === code,
    `${dialect}: ${JSON.stringify(sql)} was bound`,
  );
}

describe('bindProperties: quotes, NUL and look-alikes', () => {
  it('binds every hostile value as a value: the SQL text is the same as for a plain one, the values are as given', () => {
    for (const dialect of DIALECTS) {
      const plain = bindProperties(SQL, claimsWith('eu'), dialect);
      for (const value of HOSTILE) {
        const bound = bindProperties(SQL, claimsWith(value), dialect);
        assert.equal(bound.text, plain.text, `${dialect}: ${JSON.stringify(value)}`);
        if (!plain.text.includes(value)) assert.ok(!bound.text.includes(value), `${dialect}: ${JSON.stringify(value)} in the text`);
        assert.deepEqual(bound.values, dialect === 'postgres' ? [value, 2, [value, 'eu']] : [value, 2, value, 'eu'], JSON.stringify(value));
      }
    }
  });

  it('takes look-alikes of {{ and }} in the SQL for text: no placeholder, nothing bound', () => {
    for (const dialect of DIALECTS) {
      for (const sql of [
        'SELECT \uFF5B\uFF5B region \uFF5D\uFF5D',
        'SELECT \uFE5B\uFE5B region \uFE5C\uFE5C',
        'SELECT \u2774\u2774 region \u2775\u2775',
        'SELECT {\uFF5B region }\uFF5D',
      ]) {
        assert.deepEqual(bindProperties(sql, claimsWith('eu'), dialect), { text: sql, values: [] }, `${dialect}: ${sql}`);
      }
      refused('SELECT {{ region \uFF5D\uFF5D', dialect, 'placeholder_malformed');
      refused('SELECT {{ r\u0435gion }}', dialect, 'placeholder_malformed'); // a Cyrillic е in the name
      refused('SELECT {{ region\u0000 }}', dialect, 'placeholder_malformed');
    }
  });

  it('binds a placeholder only to the property of exactly its name, never to a look-alike key', () => {
    for (const dialect of DIALECTS) {
      const lookalike: BindableClaims = {
        sub: 'acme',
        tid: 7,
        props: { 'r\u0435gion': "x' OR '1'='1", 'region\u0000': 'x', '\uFF52egion': 'x' },
      };
      assert.throws(
        () => bindProperties('SELECT {{ region }}', lookalike, dialect),
        (e: unknown) => e instanceof EmbedBindingError && e.code === 'variable_missing',
      );
    }
  });

  it('refuses a placeholder wrapped in look-alike quotes: both databases read those as identifier characters, so the parameter would run into them', () => {
    for (const dialect of DIALECTS) {
      for (const [open, close] of [
        ['\uFF07', '\uFF07'],
        ['\u2018', '\u2019'],
        ['\u201C', '\u201D'],
        ['\u02BC', '\u02BC'],
        ['\u00B4', '\u00B4'],
      ]) {
        refused(`SELECT * FROM orders WHERE region = ${open}{{ region }}${close}`, dialect, 'placeholder_malformed');
        refused(`SELECT * FROM orders WHERE region = {{ region }}${close}`, dialect, 'placeholder_malformed');
      }
    }
  });

  it('is not fooled by look-alike quotes into thinking a real placeholder is inside a literal, or a real literal ended', () => {
    for (const dialect of DIALECTS) {
      // The look-alikes open no literal: the placeholder after them is code, and is bound.
      assert.equal(bindProperties('SELECT \u2018 a \u2019, {{ tier }}', claimsWith('eu'), dialect).values.length, 1, dialect);
      // A real literal holding look-alike quotes still hides its placeholder-like text, and ends at its real quote.
      refused("SELECT 'it\u2019s {{ region }}'", dialect, 'placeholder_in_literal');
      refused("SELECT 'a\uFF07' || '{{ region }}'", dialect, 'placeholder_in_literal');
      refused("SELECT 'a\u0000' || '{{ region }}'", dialect, 'placeholder_in_literal');
    }
  });
});

/** The bound queries run for real: a hostile value matches only a row holding exactly it. */
describe('bindProperties: hostile values on real databases', () => {
  const ROWS: [number, string][] = [
    [1, 'eu'],
    [2, 'us'],
    [3, "o'brien"],
    [4, 'o\u2019brien'],
  ];
  const QUERY = 'SELECT id FROM orders WHERE region = {{ region }} ORDER BY id';
  let sqlite: InstanceType<typeof SqliteDatabase>;
  let database: TestDatabase;
  let client: pg.Client;
  before(async () => {
    sqlite = new SqliteDatabase(':memory:');
    sqlite.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT)');
    for (const row of ROWS) sqlite.prepare('INSERT INTO orders VALUES (?, ?)').run(...row);
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query('CREATE TABLE orders (id integer PRIMARY KEY, region text)');
    for (const row of ROWS) await client.query('INSERT INTO orders VALUES ($1, $2)', row);
  });
  after(async () => {
    sqlite?.close();
    await client?.end();
    await database?.drop();
  });

  const onSqlite = (region: string) => {
    const { text, values } = bindProperties(QUERY, claimsWith(region), 'sqlite');
    return (
      sqlite
        .prepare(text)
        .pluck()
        .all(...values) as number[]
    ).sort();
  };
  const onPostgres = async (region: string) => {
    const { text, values } = bindProperties(QUERY, claimsWith(region), 'postgres');
    return (await client.query<{ id: number }>(text, values)).rows.map((row) => row.id);
  };

  it('finds the row holding exactly the quoted value, and only it (the control)', async () => {
    assert.deepEqual(onSqlite("o'brien"), [3]);
    assert.deepEqual(onSqlite('o\u2019brien'), [4]);
    assert.deepEqual(await onPostgres("o'brien"), [3]);
    assert.deepEqual(await onPostgres('o\u2019brien'), [4]);
  });

  it('returns no row for any hostile value on SQLite, and leaves the table as it was', () => {
    for (const value of HOSTILE) assert.deepEqual(onSqlite(value), [], JSON.stringify(value));
    assert.equal(sqlite.prepare('SELECT count(*) FROM orders').pluck().get(), ROWS.length);
  });

  it('returns no row for any hostile value on PostgreSQL, which refuses a NUL in text outright, and leaves the table as it was', async () => {
    for (const value of HOSTILE) {
      if (value.includes('\u0000')) {
        await assert.rejects(onPostgres(value), { code: '22021' }, JSON.stringify(value));
      } else {
        assert.deepEqual(await onPostgres(value), [], JSON.stringify(value));
      }
    }
    assert.equal((await client.query('SELECT count(*)::int AS n FROM orders')).rows[0].n, ROWS.length);
  });
});
