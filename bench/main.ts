import { Command, Option } from 'commander';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createDatabaseOn, startEmbeddedPostgres } from '../test/helpers/embedded-postgres.js';
import { cpuPerRequest, formatTable, median, runBenchmark, runFrameworkFloor } from './benchmark.js';
import { budgetFigures, budgetLines, formatBudgetTable } from './budgets.js';
import { detectLoadGenerator, pinToLoadCore } from './load-generator.js';
import { formatEmbedTokenTable, runEmbedTokenBench, type EmbedTokenBench } from './embed-tokens.js';
import { formatDataRouterTable, runDataRouterBench } from './data-router.js';
import { formatScaleTable, runScale, type ScaleResult } from './scale.js';
import type { SigningAlgorithm } from '../src/signing-keys/signing-key.js';
import { defaultConfig } from '../src/platform/config.js';

/** `npm run bench`: every scenario on SQLite and PostgreSQL against the ceiling, as a Markdown table. */
const program = new Command()
  .name('bench')
  .option('--duration <seconds>', 'seconds per run', '5')
  .option('--pairs <n>', 'service/ceiling run pairs per scenario', '3')
  .option('--connections <n>', 'concurrent connections', '32')
  .option('--workers <n>', 'UGS_WORKERS for the service (its default, 1, unless given), and as many ceiling processes', '1')
  .option('--seed <n>', 'existing groups before the scenarios run', '1000')
  .addOption(new Option('--stores <list>', 'comma-separated stores').default('sqlite,postgres'))
  .addOption(new Option('--scenarios <list>', 'comma-separated scenarios').default('hit,create,update,rotate,mint'))
  .addOption(
    new Option('--floor', "measure the framework alone (Fastify + the service's log line, hit's answer) against the ceiling").default(true),
  )
  .option('--no-floor', 'skip the framework floor (its budget lines then say not measured)')
  .option('--scale <sizes>', 'existing-group counts for the scale runs ("" to skip)', '1000,1000000')
  .option('--scale-stores <list>', 'comma-separated stores of the scale runs (default: --stores)')
  .option('--embed-algorithms <list>', 'algorithms of the in-process embed token measurements ("" to skip them)', 'ES256')
  .option('--data-router <queries>', 'sequential queries per batch of the data router measurement, on PostgreSQL ("0" to skip it)', '2000')
  .parse();
const opts = program.opts<{
  floor: boolean;
  duration: string;
  pairs: string;
  connections: string;
  workers: string;
  seed: string;
  stores: string;
  scenarios: string;
  scale: string;
  scaleStores: string | undefined;
  embedAlgorithms: string;
  dataRouter: string;
}>();

const dataDir = mkdtempSync(join(tmpdir(), 'ugs-bench-'));
const secret = randomBytes(32).toString('hex');
const wanted = opts.stores.split(',');
const scaleStores = (opts.scaleStores ?? opts.stores).split(',');
const sizes = opts.scale.split(',').filter(Boolean).map(Number);
const postgres =
  wanted.includes('postgres') || (sizes.length > 0 && scaleStores.includes('postgres'))
    ? process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL, stop: async () => {} }
      : await startEmbeddedPostgres()
    : undefined;
const generator = await detectLoadGenerator();
console.error(`load: ${generator.description}`);
// The database is another machine in production: pinned, it shares the load generator's core, never the service's.
const pgPlacement =
  generator.pinned && postgres && 'dataDir' in postgres
    ? `PostgreSQL ${await pinToLoadCore(postgres.dataDir)}`
    : 'PostgreSQL unpinned (DATABASE_URL, or no pinning)';
console.error(pgPlacement);
try {
  const benchPostgres = wanted.includes('postgres') ? postgres : undefined;
  const databaseUrl =
    benchPostgres && !process.env.DATABASE_URL ? (await createDatabaseOn(benchPostgres.url, 'ugs_bench')).url : benchPostgres?.url;
  const stores: { name: string; env: Record<string, string> }[] = [
    ...(wanted.includes('sqlite') ? [{ name: 'sqlite', env: { UGS_DATA_DIR: join(dataDir, 'sqlite'), UGS_SECRET: secret } }] : []),
    ...(databaseUrl
      ? [{ name: 'postgres', env: { UGS_DATA_DIR: join(dataDir, 'pg'), UGS_SECRET: secret, DATABASE_URL: databaseUrl } }]
      : []),
  ];
  const results = await runBenchmark({
    stores,
    scenarios: opts.scenarios.split(',') as never,
    connections: Number(opts.connections),
    durationSeconds: Number(opts.duration),
    pairs: Number(opts.pairs),
    seedGroups: Number(opts.seed),
    workers: Number(opts.workers),
    log: (line) => console.error(line),
    generator,
  });
  console.log(
    `\n${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${opts.connections} connections, ${opts.workers} worker process(es) on each side, ${opts.duration}s runs, ${opts.pairs} pairs (the ratio is the median of the pairs' ratios, the rest medians of the runs); ${generator.description}; ${pgPlacement}\n`,
  );
  console.log(formatTable(results));
  // The floor answers the bytes the service answered for hit, so it needs a hit run.
  const hit = results.find((r) => r.scenario === 'hit');
  let floorRatio: number | undefined;
  if (opts.floor && hit) {
    const floor = await runFrameworkFloor({
      connections: Number(opts.connections),
      durationSeconds: Number(opts.duration),
      pairs: Number(opts.pairs),
      seedGroups: Number(opts.seed),
      generator,
      reply: hit.reply,
    });
    floorRatio = floor.ratio;
    const rps = (runs: { requestsPerSecond: number }[]) => Math.round(median(runs.map((m) => m.requestsPerSecond)));
    console.log(
      `\nFramework floor (Fastify + the service's access log line, answering the bytes of ${hit.store} hit; one process each): ${rps(floor.floor)} req/s, ceiling ${rps(floor.ceiling)} req/s, ratio ${floor.ratio.toFixed(2)}; CPU µs/req ${cpuPerRequest(floor.floor)}, ceiling ${cpuPerRequest(floor.ceiling)}`,
    );
  } else if (opts.floor) {
    console.log("\nFramework floor: not measured (it answers the hit scenario's bytes, and hit was not run)");
  }
  const algorithms = opts.embedAlgorithms.split(',').filter(Boolean) as SigningAlgorithm[];
  const tokens: EmbedTokenBench[] = [];
  for (const algorithm of algorithms) tokens.push(await runEmbedTokenBench(algorithm));
  if (tokens.length > 0) console.log(`\n${formatEmbedTokenTable(tokens)}`);
  // The service mints with UGS_EMBED_ALGORITHM's keys (its default unless set); its bare signature is that table's first row.
  const minting = tokens.find((t) => t.algorithm === (process.env.UGS_EMBED_ALGORITHM ?? defaultConfig().embed.algorithm));
  const bareSignature = minting?.figures[0]?.cpuMicrosPerOp;
  // Before the budget table: its flat-as-the-data-grows lines are the scale runs' figures.
  let scale: ScaleResult[] = [];
  if (sizes.length > 0) {
    scale = await runScale(sizes, {
      connections: Number(opts.connections),
      durationSeconds: Number(opts.duration),
      runs: Number(opts.pairs),
      stores: [
        ...(scaleStores.includes('sqlite') ? [{ name: 'sqlite' as const }] : []),
        ...(scaleStores.includes('postgres') && postgres ? [{ name: 'postgres' as const, adminUrl: postgres.url }] : []),
      ],
      log: (line) => console.error(line),
      generator,
    });
    console.log(
      `\nScale (one service per store and size, each on a store of its own loaded by bench/load-groups.ts, so each peak RSS is its own; hit, mint and create as above, the sizes' runs alternating, median of ${opts.pairs} rounds; "vs smallest" is the median of the rounds' ratios to the same store's smallest size):\n`,
    );
    console.log(formatScaleTable(scale));
  }
  console.log(
    `\nBudgets (issues 28 and 42): the service's CPU µs/req, req/s and ratios as in the first table, the bare ${minting ? `${minting.algorithm} ` : ''}signature's CPU µs from the embed token table, hit and the floor as ratios to their own ceilings, the scale lines from the scale table:\n`,
  );
  console.log(formatBudgetTable(budgetLines(budgetFigures(results, floorRatio, bareSignature, scale))));
  const routerQueries = Number(opts.dataRouter);
  if (routerQueries > 0 && benchPostgres)
    console.log(`\n${formatDataRouterTable(await runDataRouterBench(benchPostgres.url, routerQueries))}`);
  else if (routerQueries > 0) console.log('\nData router: not measured (it runs on PostgreSQL: --stores without postgres)');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await postgres?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
// embedded-postgres's exit hook would otherwise turn a failure's exit code into 0.
process.exit(process.exitCode ?? 0);
