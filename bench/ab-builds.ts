import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, createKey, median, seed, SERVICE_NODE_FLAGS, startCeiling, startProcess, WARMUP_SECONDS, type Proc } from './benchmark.js';
import { detectLoadGenerator, measure, type Measurement } from './load-generator.js';
import { SCENARIOS, type Scenario, type SeedGroup } from './scenarios.js';
import { createDatabaseOn, startEmbeddedPostgres } from '../test/helpers/embedded-postgres.js';

/**
 * `node dist/bench/ab-builds.js <other build's dist/src/cli/main.js> [scenario] [rounds] [seconds] [sqlite|postgres]`:
 * this build against another (say, a copy of dist/ taken before a change), each its own service with
 * 1,000 groups in a store of its own (a SQLite file, or a database of one PostgreSQL server: DATABASE_URL's,
 * else an embedded one, as `npm run bench` uses), and the ceiling, all pinned as `npm run bench` pins them
 * (PostgreSQL unpinned); rounds of
 * other, this, ceiling and back, so a slow spell falls on all three. Prints each side's ratio to the ceiling
 * (median of the rounds) and CPU µs per request: the before/after figures of one run.
 */
const [otherCli, scenarioName = 'hit', rounds = '3', seconds = '5', store = 'sqlite'] = process.argv.slice(2);
if (!otherCli || (store !== 'sqlite' && store !== 'postgres'))
  throw new Error('usage: ab-builds.js <other dist/src/cli/main.js> [scenario] [rounds] [seconds] [sqlite|postgres]');
const scenario = SCENARIOS.find((s) => s.name === (scenarioName as Scenario['name']))!;
const generator = await detectLoadGenerator();
const options = { connections: 32, durationSeconds: Number(seconds) };

interface Side {
  label: string;
  proc: Proc;
  key: string;
  groups: SeedGroup[];
  runs: Measurement[];
  dataDir?: string;
}

const postgres =
  store === 'postgres'
    ? process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL, stop: async () => {} }
      : await startEmbeddedPostgres()
    : undefined;
const databases: { drop(): Promise<void> }[] = [];

async function service(label: string, cli: string): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-ab-'));
  const database = postgres ? await createDatabaseOn(postgres.url, 'ugs_ab') : undefined;
  if (database) databases.push(database);
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    UGS_DATA_DIR: dataDir,
    UGS_SECRET: randomBytes(32).toString('hex'),
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  const key = await createKey(env, cli);
  const proc = await startProcess(
    [...SERVICE_NODE_FLAGS, cli, 'serve'],
    { ...env, LOG_LEVEL: 'info' },
    /"url":"(http:\/\/[^"]+)"/,
    undefined,
    generator.servicePrefix,
  );
  return { label, proc, key, groups: await seed(proc.url, key, 1000, 'ab'), runs: [], dataDir };
}

const sides: Side[] = [];
try {
  sides.push(await service('before (other build)', otherCli));
  sides.push(await service('after (this build)', CLI));
  const ceiling = await startCeiling(sides[1]!.proc.url, sides[1]!.key, scenario, sides[1]!.groups, 1, generator.servicePrefix);
  sides.push({ label: 'ceiling', proc: ceiling, key: sides[1]!.key, groups: sides[1]!.groups, runs: [] });
  const traffic = (side: Side, runId: string) => ({
    scenario,
    groups: side.groups,
    runId,
    side: side.label === 'ceiling' ? ('ceiling' as const) : ('service' as const),
  });
  for (const side of sides)
    await measure(
      generator,
      { url: side.proc.url, key: side.key },
      { ...options, durationSeconds: WARMUP_SECONDS },
      traffic(side, `w-${Date.now()}`),
    );
  for (let round = 0; round < Number(rounds); round++) {
    // Every other round in reverse order, so no side always runs right after another.
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order)
      side.runs.push(
        await measure(
          generator,
          { url: side.proc.url, key: side.key, pid: side.proc.child.pid },
          options,
          traffic(side, `r${round}-${Date.now()}`),
        ),
      );
    console.error(`round ${round + 1}: ${sides.map((s) => `${s.label} ${Math.round(s.runs[round]!.requestsPerSecond)}`).join(', ')} req/s`);
  }
  const ceilingRuns = sides[2]!.runs;
  console.log(
    `${scenario.name}, ${store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${rounds} rounds of ${seconds}s; ${generator.description}`,
  );
  console.log('| side | req/s | ratio to ceiling | CPU µs/req | non-2xx+errors |\n| --- | --- | --- | --- | --- |');
  for (const side of sides) {
    const ratio = median(side.runs.map((m, i) => m.requestsPerSecond / ceilingRuns[i]!.requestsPerSecond));
    const cpu = median(side.runs.map((m) => m.cpuMicrosPerRequest ?? 0));
    console.log(
      `| ${side.label} | ${Math.round(median(side.runs.map((m) => m.requestsPerSecond)))} | ${ratio.toFixed(3)} | ${cpu.toFixed(1)} | ${side.runs.reduce((n, m) => n + m.non2xx + m.errors, 0)} |`,
    );
  }
  const [before, after] = sides;
  const paired = (f: (m: Measurement) => number) => median(after!.runs.map((m, i) => f(m) / f(before!.runs[i]!))).toFixed(3);
  console.log(
    `after/before, median of the rounds: throughput ${paired((m) => m.requestsPerSecond)}, CPU per request ${paired((m) => m.cpuMicrosPerRequest ?? 0)}`,
  );
} finally {
  for (const side of sides) {
    await side.proc.stop();
    if (side.dataDir) rmSync(side.dataDir, { recursive: true, force: true });
  }
  for (const database of databases) await database.drop();
  await postgres?.stop();
}
// embedded-postgres's exit hook would otherwise turn a failure's exit code into 0.
process.exit(process.exitCode ?? 0);
