import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { createDataRouter, withSessionClaims, type RoutedClaims } from 'user-group-service/embed';
import { startEmbeddedPostgres } from '../test/helpers/embedded-postgres.js';
import { startDataRouterFixture } from './data-router-fixture.js';
import { LOAD_CORE, pinToLoadCore, SERVICE_CORE } from './load-generator.js';

/**
 * The data router's cost per query (issue 39): the same query, one at a time, three ways on one database:
 * a plain pg.Pool's `pool.query`; the same pool with what row policies need (`pool.connect`, then
 * withSessionClaims: BEGIN, set_config of the claims, the query, COMMIT, release); and `router.run`, which adds
 * to the latter the routing (the mapping, the service's answer no older than refreshMs, the pool of the data
 * source, the guarded connection). Pinned as `npm run bench` pins: this process, the measured one, alone on
 * core 0; PostgreSQL and the service (asked once per refreshMs) on core 1. The batches take turns, one of each
 * per round after an untimed round, and each figure is the median of the rounds.
 */

const SQL = 'SELECT id, amount FROM orders WHERE id <= 10 ORDER BY id';
const ROUNDS = 5;
const SELF = fileURLToPath(import.meta.url);

export interface DataRouterFigure {
  path: string;
  /** Wall-clock µs per query: latency, PostgreSQL's round trips included. */
  microsPerQuery: number;
  /** CPU µs per query of this process (the dashboard's side: driver, transaction, routing); PostgreSQL's is not counted. */
  cpuMicrosPerQuery: number;
}

export interface DataRouterBench {
  queries: number;
  pinned: string;
  refreshMs: number;
  figures: [bare: DataRouterFigure, transaction: DataRouterFigure, router: DataRouterFigure];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(paths: { path: string; call: () => Promise<unknown> }[], queries: number): Promise<DataRouterFigure[]> {
  const wall = paths.map((): number[] => []);
  const cpu = paths.map((): number[] => []);
  for (let round = -1; round < ROUNDS; round++) {
    for (const [index, { call }] of paths.entries()) {
      const start = process.hrtime.bigint();
      const startCpu = process.cpuUsage();
      for (let i = 0; i < queries; i++) await call();
      const used = process.cpuUsage(startCpu);
      if (round < 0) continue;
      wall[index]!.push(Number(process.hrtime.bigint() - start) / 1000 / queries);
      cpu[index]!.push((used.user + used.system) / queries);
    }
  }
  return paths.map(({ path }, i) => ({ path, microsPerQuery: median(wall[i]!), cpuMicrosPerQuery: median(cpu[i]!) }));
}

/** Measures in this process, wherever it runs; `servicePrefix` places the service's process. */
export async function measureDataRouter(
  adminUrl: string,
  queries: number,
  servicePrefix: string[],
  pinned: string,
): Promise<DataRouterBench> {
  const fixture = await startDataRouterFixture(adminUrl, servicePrefix);
  const pool = new pg.Pool({ connectionString: fixture.databaseUrl, max: 10 });
  const refreshMs = 5_000;
  const router = createDataRouter({ serviceUrl: fixture.serviceUrl, apiKey: fixture.dashboardKey, refreshMs });
  const claims: RoutedClaims = { sub: 'acme', env: 'Customer', map: { sales: fixture.dataSourceId }, props: { region: 'eu' } };
  try {
    const figures = await measure(
      [
        { path: 'pg.Pool: pool.query', call: () => pool.query(SQL) },
        {
          path: 'pg.Pool: connect, withSessionClaims (BEGIN, set_config, the query, COMMIT), release',
          call: async () => {
            const client = await pool.connect();
            try {
              return await withSessionClaims(client, claims, (c) => c.query(SQL));
            } finally {
              client.release();
            }
          },
        },
        { path: 'router.run (the same, routed by the mapping)', call: () => router.run(claims, 'sales', (c) => c.query(SQL)) },
      ],
      queries,
    );
    return { queries, pinned, refreshMs, figures: figures as DataRouterBench['figures'] };
  } finally {
    await router.close();
    await pool.end();
    await fixture.stop();
  }
}

async function tasksetInstalled(): Promise<boolean> {
  return promisify(execFile)('taskset', ['-V']).then(
    () => true,
    () => false,
  );
}

/**
 * Runs the measurement in a process of its own pinned to core 0 (when the machine has two cores and taskset),
 * against the PostgreSQL at `adminUrl` (superuser), which the caller placed; what `npm run bench` calls.
 */
export async function runDataRouterBench(adminUrl: string, queries: number): Promise<DataRouterBench> {
  const pinned = availableParallelism() >= 2 && (await tasksetInstalled());
  const prefix = pinned ? ['taskset', '-c', SERVICE_CORE] : [];
  const args = [...prefix, process.execPath, SELF, '--measure', adminUrl, String(queries), pinned ? 'pinned' : 'unpinned'];
  const child = spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the data router benchmark exited with ${String(code)}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as DataRouterBench;
}

export function formatDataRouterTable(result: DataRouterBench): string {
  const [bare, transaction, router] = result.figures;
  const lines = ['| path | µs/query | CPU µs/query |', '| --- | ---: | ---: |'];
  for (const f of result.figures) lines.push(`| ${f.path} | ${f.microsPerQuery.toFixed(1)} | ${f.cpuMicrosPerQuery.toFixed(1)} |`);
  const over = (a: DataRouterFigure, b: DataRouterFigure) =>
    `${(a.microsPerQuery - b.microsPerQuery).toFixed(1)} µs (${(a.microsPerQuery / b.microsPerQuery).toFixed(2)} ×), CPU ${(a.cpuMicrosPerQuery - b.cpuMicrosPerQuery).toFixed(1)} µs (${(a.cpuMicrosPerQuery / b.cpuMicrosPerQuery).toFixed(2)} ×)`;
  return [
    `Data router, cost per query (\`${SQL}\`, ${result.queries} sequential queries per batch, median of ${ROUNDS} rounds; ${result.pinned}; refreshMs ${result.refreshMs}):`,
    '',
    ...lines,
    '',
    `The router's own cost (routing over the same transaction): ${over(router, transaction)}.`,
    `The router against a bare pool.query (routing, and the transaction row policies need): ${over(router, bare)}.`,
  ].join('\n');
}

// `node dist/bench/data-router.js [queries]`: its own PostgreSQL (pinned to core 1), then the measurement pinned to core 0.
// `--measure <adminUrl> <queries> <placement>`: the measurement itself, in this process (runDataRouterBench spawns it).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === '--measure') {
    const [adminUrl, queries, placement] = process.argv.slice(3);
    const pinned =
      placement === 'pinned'
        ? `pinned: the router's process on core ${SERVICE_CORE}, PostgreSQL and the service on core ${LOAD_CORE}`
        : 'NOT pinned (one core, or no taskset): the router, PostgreSQL and the service share the cores';
    const prefix = placement === 'pinned' ? ['taskset', '-c', LOAD_CORE] : [];
    console.log(JSON.stringify(await measureDataRouter(adminUrl!, Number(queries), prefix, pinned)));
  } else {
    const postgres = await startEmbeddedPostgres();
    try {
      console.error(`PostgreSQL ${await pinToLoadCore(postgres.dataDir)}`);
      console.log(formatDataRouterTable(await runDataRouterBench(postgres.url, Number(process.argv[2] ?? 2_000))));
    } finally {
      await postgres.stop();
    }
    // embedded-postgres's exit hook would otherwise turn a failure's exit code into 0.
    process.exit(process.exitCode ?? 0);
  }
}
