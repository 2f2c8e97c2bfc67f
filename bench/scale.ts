import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { adminQuery, createDatabaseOn, type Database } from '../test/helpers/embedded-postgres.js';
import { CLI, createKey, median, SERVICE_NODE_FLAGS, startProcess, WARMUP_SECONDS, type Proc } from './benchmark.js';
import { detectLoadGenerator, measure, type LoadGenerator, type Measurement } from './load-generator.js';
import { loadGroups } from './load-groups.js';
import { processStatusMb } from './process-cpu.js';
import { SCENARIOS, type Scenario } from './scenarios.js';

/** A store the scale runs use: SQLite in a data dir of each size's own, or a database of each size's own on a PostgreSQL server. */
export type ScaleStore = { name: 'sqlite' } | { name: 'postgres'; /** A URL allowed to CREATE DATABASE on the server. */ adminUrl: string };

/** The scenarios of a scale run, in the order each round runs them. */
const SCALE_SCENARIOS = ['hit', 'mint', 'create'] as const;
type ScaleScenario = (typeof SCALE_SCENARIOS)[number];

export interface ScaleResult {
  store: ScaleStore['name'];
  groups: number;
  hit: Measurement[];
  mint: Measurement[];
  create: Measurement[];
  /** Median over the rounds of this size's hit throughput over the same store's smallest size's in the same round. */
  hitVsSmallest: number;
  /** The same for mint. */
  mintVsSmallest: number;
  /** The loader's time to write the groups (and, on PostgreSQL, to vacuum and analyze them). */
  loadMs: number;
  /** From spawn to the first 200 from /readyz. */
  readyMs: number;
  /** VmHWM of the service process at the end of the runs, in MB; undefined without /proc. */
  peakRssMb: number | undefined;
}

function readyz(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${url}/readyz`, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

function peakRssMb(pid: number): number | undefined {
  try {
    return processStatusMb(pid, 'VmHWM') || undefined;
  } catch {
    return undefined;
  }
}

interface ScaleService {
  size: number;
  dataDir: string;
  database: Database | undefined;
  key: string;
  service: Proc;
  loadMs: number;
  readyMs: number;
}

/**
 * Loads `size` groups into a store of their own (a fresh data dir, and on
 * PostgreSQL a fresh database) and starts a service on it with the loader's
 * secret, timing spawn to the first 200 from /readyz.
 */
async function startScaleService(
  store: ScaleStore,
  size: number,
  generator: LoadGenerator,
  log: (line: string) => void,
): Promise<ScaleService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-scale-'));
  let database: Database | undefined;
  try {
    if (store.name === 'postgres') database = await createDatabaseOn(store.adminUrl, 'ugs_scale');
    const env: Record<string, string> = {
      UGS_DATA_DIR: dataDir,
      UGS_SECRET: randomBytes(32).toString('hex'),
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      ...(database && { DATABASE_URL: database.url }),
    };
    const loadStart = Date.now();
    const { streams } = await loadGroups(env, size, 'scale');
    const loadedMs = Date.now() - loadStart;
    // A database loaded long ago has been vacuumed and analyzed by autovacuum; without this, autovacuum would
    // do it during the measured runs, and the planner would plan the first queries without statistics.
    if (database) await adminQuery(database.url, 'VACUUM (ANALYZE)');
    const loadMs = Date.now() - loadStart;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    log(
      `scale ${store.name} ${size}: loaded in ${seconds(loadedMs)} (${streams} transaction(s) at a time)${database ? `, VACUUM (ANALYZE) in ${seconds(loadMs - loadedMs)}` : ''}`,
    );
    const key = await createKey(env);
    const started = Date.now();
    const service = await startProcess(
      [...SERVICE_NODE_FLAGS, CLI, 'serve'],
      env,
      /"url":"(http:\/\/[^"]+)"/,
      undefined,
      generator.servicePrefix,
    );
    while ((await readyz(service.url)) !== 200) await sleep(5);
    return { size, dataDir, database, key, service, loadMs, readyMs: Date.now() - started };
  } catch (error) {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function stopScaleService(s: ScaleService): Promise<void> {
  await s.service.stop();
  await s.database?.drop();
  rmSync(s.dataDir, { recursive: true, force: true });
}

/**
 * Hit, mint and create on one store at each size (ascending), with load time,
 * time to ready and peak RSS. Every size has its own service, and the runs
 * alternate between them (all sizes' hit, then all sizes' mint, then all
 * sizes' create, `runs` times), so a slow spell of the machine falls on every
 * size alike; "vs smallest" is the median of the per-round ratios. A service
 * waiting its turn is idle, so each one's peak RSS is its own.
 */
async function runStoreScale(
  store: ScaleStore,
  sizes: number[],
  groupsOf: (size: number) => { id: string; token: string }[],
  options: { connections: number; durationSeconds: number; runs: number },
  generator: LoadGenerator,
  log: (line: string) => void,
): Promise<ScaleResult[]> {
  const services: ScaleService[] = [];
  try {
    for (const size of sizes) services.push(await startScaleService(store, size, generator, log));
    const scenario = (name: ScaleScenario): Scenario => SCENARIOS.find((s) => s.name === name)!;
    const results: ScaleResult[] = services.map((s) => ({
      store: store.name,
      groups: s.size,
      hit: [],
      mint: [],
      create: [],
      hitVsSmallest: 0,
      mintVsSmallest: 0,
      loadMs: s.loadMs,
      readyMs: s.readyMs,
      peakRssMb: undefined,
    }));
    const target = (s: ScaleService) => ({ url: s.service.url, key: s.key, pid: s.service.child.pid });
    const warmup = { ...options, durationSeconds: WARMUP_SECONDS };
    // Every path, as the main runs warm each scenario: without create's, a service's first create run (1 s, on a busy
    // machine) twice answered nothing in the smoke test.
    for (const s of services)
      for (const name of SCALE_SCENARIOS)
        await measure(generator, { url: s.service.url, key: s.key }, warmup, {
          scenario: scenario(name),
          groups: groupsOf(s.size),
          runId: `warmup-${name}`,
          side: 'service',
        });
    for (let run = 0; run < options.runs; run++) {
      for (const name of SCALE_SCENARIOS) {
        for (const [i, s] of services.entries()) {
          results[i]![name].push(
            await measure(generator, target(s), options, {
              scenario: scenario(name),
              groups: groupsOf(s.size),
              // Unique per run and size: create makes new ids from it.
              runId: `scale-${name}-${run}-${s.size}-${Date.now()}`,
              side: 'service',
            }),
          );
        }
      }
      const rps = (name: ScaleScenario) => results.map((r) => `${r.groups} ${Math.round(r[name][run]!.requestsPerSecond)}`).join(', ');
      log(`scale ${store.name} round ${run + 1}: hit ${rps('hit')}; mint ${rps('mint')} req/s`);
    }
    const smallest = results[0]!;
    const vsSmallest = (result: ScaleResult, name: 'hit' | 'mint') =>
      median(result[name].map((m, run) => m.requestsPerSecond / (smallest[name][run]!.requestsPerSecond || 1)));
    for (const [i, s] of services.entries()) {
      const result = results[i]!;
      result.peakRssMb = peakRssMb(s.service.child.pid!);
      result.hitVsSmallest = vsSmallest(result, 'hit');
      result.mintVsSmallest = vsSmallest(result, 'mint');
      log(
        `scale ${store.name} ${s.size}: hit ${Math.round(median(result.hit.map((m) => m.requestsPerSecond)))} req/s, ready in ${s.readyMs} ms, peak RSS ${Math.round(result.peakRssMb ?? 0)} MB`,
      );
    }
    return results;
  } finally {
    for (const s of services) await stopScaleService(s);
  }
}

/**
 * The scale runs of every store in turn (SQLite only unless told), each store
 * with one service per size; the sizes run in ascending order, so "vs
 * smallest" compares with the first.
 */
export async function runScale(
  sizes: number[],
  options: {
    connections: number;
    durationSeconds: number;
    runs: number;
    stores?: ScaleStore[];
    log?: (line: string) => void;
    generator?: LoadGenerator;
  },
): Promise<ScaleResult[]> {
  const log = options.log ?? (() => {});
  const generator = options.generator ?? (await detectLoadGenerator());
  const ascending = [...new Set(sizes)].sort((a, b) => a - b);
  // Built once per size: a million fresh objects before every run would load the generator's own GC.
  const groupLists = new Map(ascending.map((size) => [size, Array.from({ length: size }, (_, i) => ({ id: `scale-${i}`, token: '' }))]));
  const results: ScaleResult[] = [];
  for (const store of options.stores ?? [{ name: 'sqlite' }]) {
    const refused = store.name === 'postgres' ? await cannotCreateDatabases(store.adminUrl) : undefined;
    // A DATABASE_URL without the right to create databases: its lines say not measured, the rest of the bench runs.
    if (refused) log(`scale postgres: not measured (each size needs a database of its own: ${refused})`);
    else results.push(...(await runStoreScale(store, ascending, (size) => groupLists.get(size)!, options, generator, log)));
  }
  return results;
}

/** Why the server at `adminUrl` refuses to create a database, or undefined when it does not. */
async function cannotCreateDatabases(adminUrl: string): Promise<string | undefined> {
  try {
    await (await createDatabaseOn(adminUrl, 'ugs_scale_probe')).drop();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export function formatScaleTable(results: ScaleResult[]): string {
  const rps = (runs: Measurement[]) => Math.round(median(runs.map((m) => m.requestsPerSecond)));
  const rows = results.map((r) => [
    r.store,
    r.groups.toLocaleString('en'),
    rps(r.hit),
    r.hitVsSmallest.toFixed(2),
    median(r.hit.map((m) => m.p99)),
    rps(r.mint),
    r.mintVsSmallest.toFixed(2),
    rps(r.create),
    (r.loadMs / 1000).toFixed(1),
    r.readyMs,
    r.peakRssMb === undefined ? '-' : Math.round(r.peakRssMb),
    [...r.hit, ...r.mint, ...r.create].reduce((n, m) => n + m.non2xx + m.errors, 0),
  ]);
  const header = [
    'store',
    'existing groups',
    'hit req/s',
    'hit vs smallest',
    'hit p99 ms',
    'mint req/s',
    'mint vs smallest',
    'create req/s',
    'load s',
    'time to ready ms',
    'peak RSS MB',
    'non-2xx+errors',
  ];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
