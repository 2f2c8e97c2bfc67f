import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetFigures, budgetLines, formatBudgetTable, type BudgetFigures, type BudgetLine } from '../../bench/budgets.js';
import type { ScenarioResult } from '../../bench/benchmark.js';

type Path = BudgetFigures['paths'][number];

const path = (store: string, name: string, figures: Partial<Path> = {}): Path => ({
  store,
  path: name,
  requestsPerSecond: 10_000,
  cpuMicros: 50,
  ratio: 0.3,
  ...figures,
});

/** Both stores' hit and mint, a floor and a bare signature: every line measured. */
function figures(
  overrides: { paths?: Path[]; floorRatio?: number | undefined; bareSignatureMicros?: number | undefined } = {},
): BudgetFigures {
  return {
    paths: overrides.paths ?? [path('sqlite', 'hit'), path('sqlite', 'mint'), path('postgres', 'hit'), path('postgres', 'mint')],
    floorRatio: 'floorRatio' in overrides ? overrides.floorRatio : 0.4,
    bareSignatureMicros: 'bareSignatureMicros' in overrides ? overrides.bareSignatureMicros : 36,
  };
}

function line(lines: BudgetLine[], goal: RegExp, store: string): BudgetLine {
  const found = lines.find((l) => goal.test(l.goal) && l.store === store);
  assert.ok(found, `a line for ${goal} on ${store}: ${JSON.stringify(lines)}`);
  return found;
}

const MINT = /^mint CPU ≤ hit CPU \+ bare signature \+ 15 µs$/;
const POSTGRES = /^PostgreSQL mint ≥ 0\.8 × SQLite mint$/;
const FLOOR = /^hit within 10 % of the framework floor$/;

describe('budget lines (issue 28)', () => {
  it('has one line per goal and store, in a fixed order', () => {
    const lines = budgetLines(figures());
    assert.deepEqual(
      lines.map((l) => [l.goal, l.store]),
      [
        ['mint CPU ≤ hit CPU + bare signature + 15 µs', 'sqlite'],
        ['mint CPU ≤ hit CPU + bare signature + 15 µs', 'postgres'],
        ['PostgreSQL mint ≥ 0.8 × SQLite mint', 'postgres vs sqlite'],
        ['hit within 10 % of the framework floor', 'sqlite'],
        ['hit within 10 % of the framework floor', 'postgres'],
      ],
    );
  });

  it('passes mint CPU up to hit + bare signature + 15 µs, per store, and fails it above', () => {
    // 40 + 36 + 15 = 91 µs.
    const lines = budgetLines(
      figures({
        paths: [
          path('sqlite', 'hit', { cpuMicros: 40 }),
          path('sqlite', 'mint', { cpuMicros: 91 }),
          path('postgres', 'hit', { cpuMicros: 40 }),
          path('postgres', 'mint', { cpuMicros: 91.5 }),
        ],
      }),
    );
    assert.equal(line(lines, MINT, 'sqlite').result, 'pass');
    assert.equal(line(lines, MINT, 'postgres').result, 'FAIL');
    assert.equal(line(lines, MINT, 'postgres').measured, 'mint 91.5 µs');
    assert.equal(line(lines, MINT, 'postgres').budget, '≤ 40.0 µs + 36.0 µs + 15 µs = 91.0 µs');
  });

  it("compares each store's mint with that store's own hit", () => {
    const lines = budgetLines(
      figures({
        paths: [
          path('sqlite', 'hit', { cpuMicros: 100 }),
          path('sqlite', 'mint', { cpuMicros: 140 }),
          path('postgres', 'hit', { cpuMicros: 40 }),
          path('postgres', 'mint', { cpuMicros: 140 }),
        ],
      }),
    );
    assert.equal(line(lines, MINT, 'sqlite').result, 'pass');
    assert.equal(line(lines, MINT, 'postgres').result, 'FAIL');
  });

  it('passes PostgreSQL mint at 0.8 of SQLite mint or more, and fails it below', () => {
    const at = (postgres: number) =>
      line(
        budgetLines(
          figures({
            paths: [path('sqlite', 'mint', { requestsPerSecond: 5000 }), path('postgres', 'mint', { requestsPerSecond: postgres })],
          }),
        ),
        POSTGRES,
        'postgres vs sqlite',
      );
    assert.equal(at(4000).result, 'pass');
    assert.equal(at(6000).result, 'pass');
    assert.equal(at(3999).result, 'FAIL');
    assert.equal(at(3999).budget, '≥ 0.8 × 5000 = 4000 req/s');
  });

  it("passes hit at 0.9 of the floor's ratio or more, per store, and fails it below", () => {
    const lines = budgetLines(
      figures({
        paths: [path('sqlite', 'hit', { ratio: 0.361 }), path('postgres', 'hit', { ratio: 0.359 })],
        floorRatio: 0.4,
      }),
    );
    assert.equal(line(lines, FLOOR, 'sqlite').result, 'pass');
    assert.equal(line(lines, FLOOR, 'postgres').result, 'FAIL');
    assert.equal(line(lines, FLOOR, 'postgres').budget, '≥ 0.9 × floor 0.400 = 0.360');
  });

  it('says not measured, never pass, for every line missing an input', () => {
    const none = budgetLines(figures({ paths: [], floorRatio: undefined, bareSignatureMicros: undefined }));
    assert.equal(none.length, 5);
    for (const l of none) assert.equal(l.result, 'not measured', JSON.stringify(l));

    // SQLite only, with no bare signature: the mint lines lack it, PostgreSQL's lines lack their store.
    const sqliteOnly = budgetLines(
      figures({ paths: [path('sqlite', 'hit', { ratio: 0.5 }), path('sqlite', 'mint', { cpuMicros: 1 })], bareSignatureMicros: undefined }),
    );
    assert.equal(line(sqliteOnly, MINT, 'sqlite').result, 'not measured');
    assert.equal(line(sqliteOnly, MINT, 'sqlite').measured, 'no bare signature');
    assert.equal(line(sqliteOnly, MINT, 'postgres').measured, 'no postgres mint CPU, no postgres hit CPU, no bare signature');
    assert.equal(line(sqliteOnly, POSTGRES, 'postgres vs sqlite').result, 'not measured');
    assert.equal(line(sqliteOnly, FLOOR, 'sqlite').result, 'pass');
    assert.equal(line(sqliteOnly, FLOOR, 'postgres').result, 'not measured');

    // No CPU figures (no /proc): the mint lines cannot be checked.
    const noCpu = budgetLines(figures({ paths: [path('sqlite', 'hit', { cpuMicros: undefined }), path('sqlite', 'mint')] }));
    assert.equal(line(noCpu, MINT, 'sqlite').result, 'not measured');
    assert.equal(line(noCpu, MINT, 'sqlite').measured, 'no sqlite hit CPU');

    const noFloor = budgetLines(figures({ floorRatio: undefined }));
    assert.equal(line(noFloor, FLOOR, 'sqlite').result, 'not measured');
    assert.equal(line(noFloor, FLOOR, 'sqlite').measured, 'no framework floor');
  });

  it("takes a run's medians: req/s, CPU per request and the ratio of each scenario", () => {
    const run = (requestsPerSecond: number, cpuMicrosPerRequest: number | undefined) => ({
      requestsPerSecond,
      p50: 1,
      p99: 2,
      non2xx: 0,
      errors: 0,
      cpuMicrosPerRequest,
    });
    const result: ScenarioResult = {
      store: 'sqlite',
      scenario: 'mint',
      service: [run(100, 90), run(300, 70), run(200, undefined)],
      ceiling: [],
      ratio: 0.25,
      reply: { status: 200, headers: {}, body: '' },
    };
    assert.deepEqual(budgetFigures([result], 0.4, 36), {
      paths: [{ store: 'sqlite', path: 'mint', requestsPerSecond: 200, cpuMicros: 90, ratio: 0.25 }],
      floorRatio: 0.4,
      bareSignatureMicros: 36,
    });
  });

  it('prints a Markdown table, a row per line', () => {
    const table = formatBudgetTable(budgetLines(figures())).split('\n');
    assert.equal(table[0], '| goal | store | measured | budget | result |');
    assert.equal(table.length, 2 + 5);
    assert.match(
      table[2]!,
      /^\| mint CPU ≤ hit CPU \+ bare signature \+ 15 µs \| sqlite \| mint 50\.0 µs \| ≤ 50\.0 µs \+ 36\.0 µs \+ 15 µs = 101\.0 µs \| pass \|$/,
    );
  });
});
