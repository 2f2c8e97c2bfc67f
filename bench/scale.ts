import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLI, createKey, measure, median, SERVICE_NODE_FLAGS, startProcess, WARMUP_SECONDS, type Measurement } from './benchmark.js';
import { loadGroups } from './load-groups.js';
import { SCENARIOS } from './scenarios.js';

export interface ScaleResult {
  groups: number;
  hit: Measurement[];
  create: Measurement[];
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
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Hit and create on SQLite with `size` existing groups, run `runs` times each, with time to ready and peak RSS. */
export async function runScale(size: number, options: { connections: number; durationSeconds: number; runs: number; log?: (line: string) => void }): Promise<ScaleResult> {
  const log = options.log ?? (() => {});
  const dataDir = mkdtempSync(join(tmpdir(), 'ugs-scale-'));
  const secret = randomBytes(32).toString('hex');
  const env = { UGS_DATA_DIR: dataDir, UGS_SECRET: secret, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' };
  try {
    const loadStart = Date.now();
    await loadGroups(dataDir, secret, size, 'scale');
    log(`scale ${size}: loaded in ${((Date.now() - loadStart) / 1000).toFixed(1)} s`);
    const key = await createKey(env);
    const started = Date.now();
    const service = await startProcess([...SERVICE_NODE_FLAGS, CLI, 'serve'], env, /"url":"(http:\/\/[^"]+)"/);
    while ((await readyz(service.url)) !== 200) await sleep(5);
    const readyMs = Date.now() - started;
    try {
      const groups = Array.from({ length: size }, (_, i) => ({ id: `scale-${i}`, token: '' }));
      const hit = SCENARIOS.find((s) => s.name === 'hit')!;
      const create = SCENARIOS.find((s) => s.name === 'create')!;
      const result: ScaleResult = { groups: size, hit: [], create: [], readyMs, peakRssMb: 0 };
      await measure(service.url, key, { ...options, durationSeconds: WARMUP_SECONDS }, hit.requests(groups, 'warmup'));
      for (let run = 0; run < options.runs; run++) {
        result.hit.push(await measure(service.url, key, options, hit.requests(groups, `h${run}`)));
        result.create.push(await measure(service.url, key, options, create.requests(groups, `scale-new-${run}-${Date.now()}`)));
      }
      result.peakRssMb = peakRssMb(service.child.pid!);
      log(`scale ${size}: hit ${Math.round(median(result.hit.map((m) => m.requestsPerSecond)))} req/s, ready in ${readyMs} ms, peak RSS ${result.peakRssMb} MB`);
      return result;
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatScaleTable(results: ScaleResult[]): string {
  const base = results[0];
  const rows = results.map((r) => {
    const hit = median(r.hit.map((m) => m.requestsPerSecond));
    const baseHit = base ? median(base.hit.map((m) => m.requestsPerSecond)) : hit;
    return [r.groups.toLocaleString('en'), Math.round(hit), (hit / baseHit).toFixed(2), median(r.hit.map((m) => m.p99)), Math.round(median(r.create.map((m) => m.requestsPerSecond))), r.readyMs, r.peakRssMb];
  });
  const header = ['existing groups', 'hit req/s', 'hit vs smallest', 'hit p99 ms', 'create req/s', 'time to ready ms', 'peak RSS MB'];
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
