import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controlsTransaction, splitStatements } from '../../src/isolation/sql-statements.js';

describe('splitStatements', () => {
  it('splits on ; outside literals, quoted identifiers, comments and dollar quotes; numbers the statements and their lines', () => {
    const script = [
      "SELECT 'a;b', E'it\\'s;', \"c;d\" FROM t; -- one;",
      '/* two; /* nested; */ still a comment; */',
      'SELECT $fn$ ; $fn$, $$;$$',
      '  FROM u;',
      '',
      '   ;  -- empty; skipped',
      'SELECT 3',
    ].join('\n');
    const statements = splitStatements(script);
    assert.deepEqual(
      statements.map(({ number, line, firstLine }) => [number, line, firstLine]),
      [
        [1, 1, "SELECT 'a;b', E'it\\'s;', \"c;d\" FROM t"],
        // Named by its code's line, not by the comments before it (one ends the line before).
        [2, 3, 'SELECT $fn$ ; $fn$, $$;$$'],
        [3, 7, 'SELECT 3'],
      ],
    );
    assert.equal(statements[1]!.text, script.slice(script.indexOf('-- one;'), script.indexOf(';\n\n')));
    assert.deepEqual(
      splitStatements('SELECT 1; SELECT 2;\nSELECT 3\n  FROM t').map((s) => [s.line, s.firstLine, s.text]),
      [
        [1, 'SELECT 1', 'SELECT 1'],
        [1, 'SELECT 2', 'SELECT 2'],
        [2, 'SELECT 3', 'SELECT 3\n  FROM t'],
      ],
    );
    assert.deepEqual(splitStatements('-- only; comments\n/* ; */ ;;'), []);
    assert.equal(splitStatements(`SELECT '${'x'.repeat(100)}'`)[0]!.firstLine.length, 80);
  });
});

describe('controlsTransaction', () => {
  it('finds BEGIN, COMMIT, ROLLBACK and their kin after leading comments, not words that merely start so', () => {
    for (const sql of [
      'BEGIN',
      'commit',
      '-- x\n/* y */ ROLLBACK',
      'END',
      'start transaction',
      'SAVEPOINT s',
      'prepare  transaction $$x$$',
    ])
      assert.equal(controlsTransaction(sql), true, sql);
    for (const sql of ['SELECT 1', 'beginning', 'PREPARE q AS SELECT 1', "SELECT 'COMMIT'", 'ending'])
      assert.equal(controlsTransaction(sql), false, sql);
  });
});
