import { median, medianCpuMicros, type ScenarioResult } from './benchmark.js';

/**
 * Issue 28's budgets for the embed-session mint, checked against one run of
 * `npm run bench`: every figure of a line comes from the same run, and a line
 * whose figures were not all measured says so instead of passing.
 */

/** What the budgets are checked against. */
export interface BudgetFigures {
  /** Per store and path: the service's median req/s and CPU µs per request (undefined without /proc), and its ratio to its ceiling. */
  paths: { store: string; path: string; requestsPerSecond: number; cpuMicros: number | undefined; ratio: number }[];
  /** The framework floor's ratio to its own ceiling; undefined when it was not run. */
  floorRatio: number | undefined;
  /** CPU µs of one bare node:crypto signature of a typical mint token; undefined when it was not run. */
  bareSignatureMicros: number | undefined;
}

export interface BudgetLine {
  goal: string;
  store: string;
  measured: string;
  budget: string;
  result: 'pass' | 'FAIL' | 'not measured';
}

/** Every goal is checked on both stores, run or not: a store left out shows as not measured. */
const STORES = ['sqlite', 'postgres'];
export const MINT_SLACK_MICROS = 15;
export const POSTGRES_MINT_SHARE = 0.8;
export const FLOOR_SHARE = 0.9;

const GOALS = {
  mintCpu: `mint CPU ≤ hit CPU + bare signature + ${MINT_SLACK_MICROS} µs`,
  postgresMint: `PostgreSQL mint ≥ ${POSTGRES_MINT_SHARE} × SQLite mint`,
  floor: `hit within ${Math.round((1 - FLOOR_SHARE) * 100)} % of the framework floor`,
};

const micros = (value: number) => `${value.toFixed(1)} µs`;
const ratio = (value: number) => value.toFixed(3);
const verdict = (met: boolean) => (met ? 'pass' : 'FAIL');

/** The line of a goal some of whose inputs are missing (named in `missing`, falsy entries ignored). */
function notMeasured(goal: string, store: string, budget: string, missing: (string | false)[]): BudgetLine {
  return { goal, store, measured: `no ${missing.filter(Boolean).join(', no ')}`, budget, result: 'not measured' };
}

export function budgetLines(figures: BudgetFigures): BudgetLine[] {
  const find = (store: string, path: string) => figures.paths.find((p) => p.store === store && p.path === path);
  const lines: BudgetLine[] = [];
  const bare = figures.bareSignatureMicros;
  for (const store of STORES) {
    const mint = find(store, 'mint')?.cpuMicros;
    const hit = find(store, 'hit')?.cpuMicros;
    if (mint === undefined || hit === undefined || bare === undefined) {
      const missing = [
        mint === undefined && `${store} mint CPU`,
        hit === undefined && `${store} hit CPU`,
        bare === undefined && 'bare signature',
      ];
      lines.push(notMeasured(GOALS.mintCpu, store, `hit + bare signature + ${MINT_SLACK_MICROS} µs`, missing));
      continue;
    }
    const limit = hit + bare + MINT_SLACK_MICROS;
    lines.push({
      goal: GOALS.mintCpu,
      store,
      measured: `mint ${micros(mint)}`,
      budget: `≤ ${micros(hit)} + ${micros(bare)} + ${MINT_SLACK_MICROS} µs = ${micros(limit)}`,
      result: verdict(mint <= limit),
    });
  }

  const postgres = find('postgres', 'mint')?.requestsPerSecond;
  const sqlite = find('sqlite', 'mint')?.requestsPerSecond;
  if (postgres === undefined || sqlite === undefined) {
    const missing = [postgres === undefined && 'postgres mint', sqlite === undefined && 'sqlite mint'];
    lines.push(notMeasured(GOALS.postgresMint, 'postgres vs sqlite', `${POSTGRES_MINT_SHARE} × SQLite mint req/s`, missing));
  } else {
    const least = POSTGRES_MINT_SHARE * sqlite;
    lines.push({
      goal: GOALS.postgresMint,
      store: 'postgres vs sqlite',
      measured: `${Math.round(postgres)} req/s`,
      budget: `≥ ${POSTGRES_MINT_SHARE} × ${Math.round(sqlite)} = ${Math.round(least)} req/s`,
      result: verdict(postgres >= least),
    });
  }

  // Ratios, not req/s: the hit runs and the floor's are each paired with their own ceiling runs.
  const floor = figures.floorRatio;
  for (const store of STORES) {
    const hit = find(store, 'hit')?.ratio;
    if (hit === undefined || floor === undefined) {
      const missing = [hit === undefined && `${store} hit`, floor === undefined && 'framework floor'];
      lines.push(notMeasured(GOALS.floor, store, `hit ratio ≥ ${FLOOR_SHARE} × floor ratio`, missing));
      continue;
    }
    const least = FLOOR_SHARE * floor;
    lines.push({
      goal: GOALS.floor,
      store,
      measured: `hit ratio ${ratio(hit)}`,
      budget: `≥ ${FLOOR_SHARE} × floor ${ratio(floor)} = ${ratio(least)}`,
      result: verdict(hit >= least),
    });
  }
  return lines;
}

/** The figures of a run of `npm run bench`: its scenario results, the floor's ratio and the bare signature's CPU, when run. */
export function budgetFigures(
  results: ScenarioResult[],
  floorRatio: number | undefined,
  bareSignatureMicros: number | undefined,
): BudgetFigures {
  return {
    paths: results.map((r) => ({
      store: r.store,
      path: r.scenario,
      requestsPerSecond: median(r.service.map((m) => m.requestsPerSecond)),
      cpuMicros: medianCpuMicros(r.service),
      ratio: r.ratio,
    })),
    floorRatio,
    bareSignatureMicros,
  };
}

export function formatBudgetTable(lines: BudgetLine[]): string {
  const rows = [
    ['goal', 'store', 'measured', 'budget', 'result'],
    ['---', '---', '---', '---', '---'],
  ];
  for (const line of lines) rows.push([line.goal, line.store, line.measured, line.budget, line.result]);
  return rows.map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
