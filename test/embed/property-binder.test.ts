import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bindProperties,
  EmbedBindingError,
  type BindableClaims,
  type EmbedBindingErrorCode,
  type SqlDialect,
} from 'user-group-service/embed';

const INJECTION = "x' OR '1'='1";

const claims: BindableClaims = {
  sub: 'acme',
  tid: 7,
  props: {
    region: 'eu',
    tier: 2,
    vip: true,
    note: null,
    quote: INJECTION,
    regions: ['eu', 'us'],
    none: [],
    nested: { a: 1 },
    matrix: [['eu'], ['us']],
    anc: ['from-properties'],
  },
  anc: ['root', 'mid'],
  desc: ['acme-eu', 'acme-us'],
};

function refused(sql: string, dialect: SqlDialect, code: EmbedBindingErrorCode, why?: RegExp, from: BindableClaims = claims): void {
  assert.throws(
    () => bindProperties(sql, from, dialect),
    (e: unknown) => {
      assert.ok(e instanceof EmbedBindingError, `${sql}: ${String(e)}`);
      assert.equal(e.code, code, `${sql}: ${e.message}`);
      if (why) assert.match(e.message, why, sql);
      return true;
    },
    `${dialect}: ${sql} was bound`,
  );
}

describe('bindProperties', () => {
  it('binds PostgreSQL placeholders as $n, reusing the number of a variable used twice', () => {
    const bound = bindProperties(
      'SELECT * FROM orders WHERE (region = {{ region }} OR region = {{region}}) AND team_id = {{team_id}} AND owner = {{  user_group_id  }} AND tier >= {{ tier }}',
      claims,
      'postgres',
    );
    assert.equal(bound.text, 'SELECT * FROM orders WHERE (region = $1 OR region = $1) AND team_id = $2 AND owner = $3 AND tier >= $4');
    assert.deepEqual(bound.values, ['eu', 7, 'acme', 2]);
  });

  it('binds SQLite placeholders as ?, repeating values in order', () => {
    const bound = bindProperties(
      'SELECT * FROM orders WHERE (region = {{ region }} OR region = {{region}}) AND team_id = {{team_id}} AND owner = {{ user_group_id }}',
      claims,
      'sqlite',
    );
    assert.equal(bound.text, 'SELECT * FROM orders WHERE (region = ? OR region = ?) AND team_id = ? AND owner = ?');
    assert.deepEqual(bound.values, ['eu', 'eu', 7, 'acme']);
  });

  it('binds booleans and null as they are (SQLite: booleans as 1 and 0, as SQLite stores them)', () => {
    assert.deepEqual(bindProperties('SELECT {{ vip }}, {{ note }}', claims, 'postgres').values, [true, null]);
    assert.deepEqual(bindProperties('SELECT {{ vip }}, {{ note }}', claims, 'sqlite').values, [1, null]);
  });

  it('never puts a value into the SQL text', () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const bound = bindProperties('SELECT * FROM t WHERE a = {{ quote }} AND b IN {{ regions }}', claims, dialect);
      assert.ok(!bound.text.includes(INJECTION) && !bound.text.includes("'"), bound.text);
    }
  });

  it('binds a list after IN: = ANY($n) with an array on PostgreSQL, IN (?, ?) on SQLite', () => {
    const pg = bindProperties(
      'SELECT * FROM orders WHERE owner IN {{ desc }} AND region in {{regions}} AND owner IN {{ desc }}',
      claims,
      'postgres',
    );
    assert.equal(pg.text, 'SELECT * FROM orders WHERE owner = ANY($1) AND region = ANY($2) AND owner = ANY($1)');
    assert.deepEqual(pg.values, [
      ['acme-eu', 'acme-us'],
      ['eu', 'us'],
    ]);
    const lite = bindProperties('SELECT * FROM orders WHERE owner IN {{ desc }} AND region in {{regions}}', claims, 'sqlite');
    assert.equal(lite.text, 'SELECT * FROM orders WHERE owner IN (?, ?) AND region IN (?, ?)');
    assert.deepEqual(lite.values, ['acme-eu', 'acme-us', 'eu', 'us']);
  });

  it('binds NOT IN a list as <> ALL($n) on PostgreSQL', () => {
    assert.equal(bindProperties('SELECT 1 WHERE owner NOT  IN {{ anc }}', claims, 'postgres').text, 'SELECT 1 WHERE owner <> ALL($1)');
    assert.equal(bindProperties('SELECT 1 WHERE owner not in {{ anc }}', claims, 'sqlite').text, 'SELECT 1 WHERE owner NOT IN (?, ?)');
  });

  it('binds an empty list as valid SQL that matches nothing (and NOT IN as everything)', () => {
    assert.deepEqual(bindProperties('SELECT 1 WHERE r IN {{ none }}', claims, 'postgres'), {
      text: 'SELECT 1 WHERE r = ANY($1)',
      values: [[]],
    });
    assert.deepEqual(bindProperties('SELECT 1 WHERE r IN {{ none }}', claims, 'sqlite'), { text: 'SELECT 1 WHERE r IN ()', values: [] });
  });

  it('binds a scalar after IN as a list of one, and the same variable as scalar and list with their own numbers', () => {
    assert.deepEqual(bindProperties('SELECT 1 WHERE r IN {{ region }} OR r = {{ region }}', claims, 'postgres'), {
      text: 'SELECT 1 WHERE r = ANY($1) OR r = $2',
      values: [['eu'], 'eu'],
    });
    assert.deepEqual(bindProperties('SELECT 1 WHERE r IN {{ region }}', claims, 'sqlite'), {
      text: 'SELECT 1 WHERE r IN (?)',
      values: ['eu'],
    });
  });

  it('reads the built-ins from the claims, not from properties of the same name', () => {
    assert.deepEqual(bindProperties('SELECT 1 WHERE g IN {{ anc }}', claims, 'postgres').values, [['root', 'mid']]);
    refused('SELECT 1 WHERE g IN {{ anc }}', 'postgres', 'variable_missing', /no "anc" claim/, { ...claims, anc: undefined });
    refused('SELECT {{ desc }}', 'sqlite', 'variable_missing', /no "desc" claim/, { sub: 'a', tid: 1, props: {} });
  });

  it('fails closed on a variable the session does not carry, including inherited ones', () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      for (const name of ['country', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        refused(`SELECT * FROM t WHERE c = {{ ${name} }}`, dialect, 'variable_missing', new RegExp(`no property "${name}"`));
      }
    }
  });

  it('fails on a value that cannot be bound where it stands', () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      refused('SELECT {{ nested }}', dialect, 'variable_not_bindable', /an object/);
      refused('SELECT 1 WHERE r = {{ regions }}', dialect, 'variable_not_bindable', /a list; a list binds only after IN/);
      refused('SELECT 1 WHERE r IN ({{ regions }})', dialect, 'variable_not_bindable', /IN \{\{ regions \}\}/);
      refused('SELECT 1 WHERE r IN {{ nested }}', dialect, 'variable_not_bindable', /after IN is an object/);
      refused('SELECT 1 WHERE r IN {{ matrix }}', dialect, 'variable_not_bindable');
      refused('SELECT {{ big }}', dialect, 'variable_not_bindable', /non-finite/, { ...claims, props: { big: Number.POSITIVE_INFINITY } });
      // "pin" ends in IN but is not the keyword.
      refused('SELECT 1 WHERE pin {{ regions }}', dialect, 'variable_not_bindable');
    }
  });

  it('fails on a placeholder inside a string literal, a quoted identifier or a comment', () => {
    const everywhere = [
      "SELECT '{{ region }}'",
      "SELECT 'it''s {{region}}'",
      "SELECT * FROM t WHERE r LIKE '%{{ region }}%'",
      'SELECT "{{ region }}" FROM t',
      'SELECT 1 -- {{ region }}',
      'SELECT 1 /* {{ region }} */',
    ];
    for (const dialect of ['postgres', 'sqlite'] as const) {
      for (const sql of everywhere) refused(sql, dialect, 'placeholder_in_literal', /\{\{ region \}\} is inside/);
    }
    for (const sql of [
      'SELECT $$ {{ region }} $$',
      'SELECT $q$ it$$s {{ region }} $q$',
      "SELECT E'it\\'s {{ region }}'",
      'SELECT 1 /* outer /* inner */ {{ region }} */',
    ]) {
      refused(sql, 'postgres', 'placeholder_in_literal');
    }
    for (const sql of ['SELECT `{{ region }}` FROM t', 'SELECT [{{ region }}] FROM t']) refused(sql, 'sqlite', 'placeholder_in_literal');
  });

  it('binds placeholders after literals and comments that hide quotes and braces', () => {
    const sql = "SELECT 'it''s', '{{', '{\"a\":{\"b\":1}}' /* it's */ -- it's\n FROM t WHERE r = {{ region }}";
    assert.equal(bindProperties(sql, claims, 'sqlite').text, sql.replace('{{ region }}', '?'));
    const pg = "SELECT $$it's$$, $t$ {{ $t$, E'\\'', \"a\"\"b\" FROM t WHERE r = {{ region }} AND data ? 'k' AND col$1 = 1";
    assert.equal(bindProperties(pg, claims, 'postgres').text, pg.replace('{{ region }}', '$1'));
  });

  it("fails on the dialect's own parameter markers, which would shift the bound values", () => {
    for (const sql of ['SELECT $1', 'SELECT * FROM t WHERE a = $12 AND r = {{ region }}'])
      refused(sql, 'postgres', 'native_parameter', /parameter marker/);
    for (const sql of ['SELECT ?', 'SELECT ?1', 'SELECT :name', 'SELECT @name', 'SELECT $name', 'SELECT * FROM t WHERE a=:a'])
      refused(sql, 'sqlite', 'native_parameter', /parameter marker/);
  });

  it("fails on SQLite's #name marker and on markers whose name starts beyond ASCII, as SQLite reads them", () => {
    for (const [sql, marker] of [
      ['SELECT #name', '#name'],
      ['SELECT * FROM t WHERE r = {{ region }} AND a=#1', '#1'],
      ['SELECT a#b FROM t', '#b'],
      ['SELECT :é', ':é'],
      ['SELECT @$x', '@$x'],
    ] as const) {
      refused(
        sql,
        'sqlite',
        'native_parameter',
        new RegExp(`"${marker.replace('$', '\\$')}" \\(at offset \\d+\\) is a sqlite parameter marker`),
      );
    }
    // # is an operator in PostgreSQL (bitwise XOR), and a lone # is no marker in SQLite.
    assert.equal(bindProperties('SELECT 5 # {{ tier }}', claims, 'postgres').text, 'SELECT 5 # $1');
    assert.equal(bindProperties('SELECT \'#name\', "#x" -- #y\n', claims, 'sqlite').values.length, 0);
  });

  it('fails on a placeholder running into an identifier or digit character, on every dialect and style', () => {
    const touching: [string, RegExp][] = [
      ['SELECT * FROM t WHERE a = {{ tier }}1', /\{\{ tier \}\} \(at offset 26\) is immediately followed by "1"/],
      ['SELECT * FROM t WHERE a = {{tier}}abc', /\{\{ tier \}\} \(at offset 26\) is immediately followed by "a"/],
      ['SELECT {{ tier }}$', /followed by "\$"/],
      ['SELECT {{ tier }}_x', /followed by "_"/],
      ['SELECT {{ tier }}é', /followed by "é"/],
      ['SELECT {{ tier }}\u{1F600}', /followed by "\u{1F600}"/u],
      ['SELECT 1 WHERE r IN {{ regions }}1', /\{\{ regions \}\} .* followed by "1"/],
      ['SELECT 1 WHERE r NOT IN {{ regions }}x', /followed by "x"/],
      ['SELECT x{{ tier }}', /\{\{ tier \}\} \(at offset 8\) is immediately preceded by "x"/],
      ['SELECT 1{{ tier }}', /preceded by "1"/],
    ];
    for (const dialect of ['postgres', 'sqlite'] as const) {
      for (const [sql, why] of touching) refused(sql, dialect, 'placeholder_malformed', why);
    }
    // What may touch a placeholder: punctuation, operators, a cast, quotes, another placeholder, IN itself.
    for (const sql of [
      'SELECT ({{ tier }})',
      'SELECT {{tier}}+1',
      "SELECT 'a'||{{ region }}||'b'",
      'SELECT {{ tier }},{{ region }}',
      'SELECT 1 WHERE r IN{{ regions }}',
    ]) {
      assert.doesNotThrow(() => bindProperties(sql, claims, 'sqlite'), sql);
    }
    assert.equal(bindProperties('SELECT {{ tier }}::int, r NOT IN{{ regions }}', claims, 'postgres').text, 'SELECT $1::int, r <> ALL($2)');
  });

  it('fails on a malformed placeholder', () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      for (const sql of ['SELECT {{ 1abc }}', 'SELECT {{ }}', 'SELECT {{region', 'SELECT {{ a-b }}', 'SELECT {{ region }'])
        refused(sql, dialect, 'placeholder_malformed');
    }
  });

  it('leaves SQL without placeholders as it is', () => {
    assert.deepEqual(bindProperties('SELECT 1', claims, 'postgres'), { text: 'SELECT 1', values: [] });
    assert.deepEqual(bindProperties('', claims, 'sqlite'), { text: '', values: [] });
  });
});
