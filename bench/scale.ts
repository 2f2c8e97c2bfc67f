import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, createKey, median, SERVICE_NODE_FLAGS, startProcess, WARMUP_SECONDS, type Proc } from './benchmark.js';
import { detectLoadGenerator, measure, type LoadGenerator, type Measurement } from './load-generator.js';
import { loadGroups } from './load-groups.js';
import { processStatusMb } from './process-cpu.js';
import { SCENARIOS } from './scenarios.js';

export interface ScaleResult {
  groups: number;
  hit: Measurement[];
  create: Measurement[];
  /** Median over the rounds of this size's hit throughput over the smallest size's in the same round. */
  hitVsSmallest: number;
  /** From spawn to the first 200 from /readyz. */
  readyMs: number;
  /** VmHWM of the service process at the end of the runs. */
  peakRssMb: number;
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

function peakRssMb(pid: number): number {
  return Math.round(processStatusMb(pid, 'VmHWM'));
}

interface ScaleService {
  size: number;
  dataDir: string;
  key: string;
  service: Proc;
  readyMs: number;
}

/** Loads `size` groups into a fresh data dir and starts a service on it, timing spawn to the first 200 from /readyz. */
async function startScaleService(size: number, generator: LoadGenerator, log: (line: string) => void): Promise<ScaleService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-scale-'));
  const secret = randomBytes(32).toString('hex');
  const env = { UGS_DATA_DIR: dataDir, UGS_SECRET: secret, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' };
  try {
    const loadStart = Date.now();
    await loadGroups(dataDir, secret, size, 'scale');
    log(`scale ${size}: loaded in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);
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
    return { size, dataDir, key, service, readyMs: Date.now() - started };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Hit and create on SQLite at each size, with time to ready and peak RSS.
 * Every size has its own service, and the runs alternate between them (all
 * sizes' hit, then all sizes' create, `runs` times), so a slow spell of the
 * machine falls on every size alike; "hit vs smallest" is the median of the
 * per-round ratios. A service waiting its turn is idle, so each one's peak
 * RSS is its own.
 */
export async function runScale(
  sizes: number[],
  options: { connections: number; durationSeconds: number; runs: number; log?: (line: string) => void; generator?: LoadGenerator },
): Promise<ScaleResult[]> {
  const log = options.log ?? (() => {});
  const generator = options.generator ?? (await detectLoadGenerator());
  const services: ScaleService[] = [];
  try {
    for (const size of sizes) services.push(await startScaleService(size, generator, log));
    const hit = SCENARIOS.find((s) => s.name === 'hit')!;
    const create = SCENARIOS.find((s) => s.name === 'create')!;
    // Built once per size: a million fresh objects before every run would load the generator's own GC.
    const groupLists = new Map(sizes.map((size) => [size, Array.from({ length: size }, (_, i) => ({ id: `scale-${i}`, token: '' }))]));
    const groupsOf = (size: number) => groupLists.get(size)!;
    const results: ScaleResult[] = services.map((s) => ({
      groups: s.size,
      hit: [],
      create: [],
      hitVsSmallest: 0,
      readyMs: s.readyMs,
      peakRssMb: 0,
    }));
    const target = (s: ScaleService) => ({ url: s.service.url, key: s.key, pid: s.service.child.pid });
    const warmup = { ...options, durationSeconds: WARMUP_SECONDS };
    for (const s of services)
      await measure(generator, { url: s.service.url, key: s.key }, warmup, {
        scenario: hit,
        groups: groupsOf(s.size),
        runId: 'warmup',
        side: 'service',
      });
    for (let run = 0; run < options.runs; run++) {
      for (const [i, s] of services.entries()) {
        results[i]!.hit.push(
          await measure(generator, target(s), options, { scenario: hit, groups: groupsOf(s.size), runId: `h${run}`, side: 'service' }),
        );
      }
      log(
        `scale round ${run + 1}: hit ${services.map((s, i) => `${s.size} ${Math.round(results[i]!.hit[run]!.requestsPerSecond)}`).join(', ')} req/s`,
      );
      for (const [i, s] of services.entries()) {
        results[i]!.create.push(
          await measure(generator, target(s), options, {
            scenario: create,
            groups: groupsOf(s.size),
            runId: `scale-new-${run}-${Date.now()}`,
            side: 'service',
          }),
        );
      }
    }
    for (const [i, s] of services.entries()) {
      const result = results[i]!;
      result.peakRssMb = peakRssMb(s.service.child.pid!);
      result.hitVsSmallest = median(result.hit.map((m, run) => m.requestsPerSecond / (results[0]!.hit[run]!.requestsPerSecond || 1)));
      log(
        `scale ${s.size}: hit ${Math.round(median(result.hit.map((m) => m.requestsPerSecond)))} req/s, ready in ${s.readyMs} ms, peak RSS ${result.peakRssMb} MB`,
      );
    }
    return results;
  } finally {
    for (const s of services) {
      await s.service.stop();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
}

export function formatScaleTable(results: ScaleResult[]): string {
  const rows = results.map((r) => {
    const hit = median(r.hit.map((m) => m.requestsPerSecond));
    return [
      r.groups.toLocaleString('en'),
      Math.round(hit),
      r.hitVsSmallest.toFixed(2),
      median(r.hit.map((m) => m.p99)),
      Math.round(median(r.create.map((m) => m.requestsPerSecond))),
      r.readyMs,
      r.peakRssMb,
    ];
  });
  const header = ['existing groups', 'hit req/s', 'hit vs smallest', 'hit p99 ms', 'create req/s', 'time to ready ms', 'peak RSS MB'];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
