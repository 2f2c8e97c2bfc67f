import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, createKey, seed, SERVICE_NODE_FLAGS, startProcess } from './benchmark.js';
import { detectLoadGenerator, measure } from './load-generator.js';
import { processStatusMb } from './process-cpu.js';
import { SCENARIOS } from './scenarios.js';

/**
 * `node dist/bench/peak-memory.js [cli] [node flags…]`: where a serving process's memory goes under
 * load. The service (SQLite, 1,000 groups, `npm start`'s flags and any given; `cli` is another build's
 * dist/src/cli/main.js, this one's by default) answers hit, create, hit, create for 4 s each, loaded
 * as `npm run bench` loads it, while its RSS (/proc/<pid>/status) and V8 heap (/metrics) are sampled
 * every 200 ms; prints the peaks and each run's req/s.
 */
const [cli = CLI, ...nodeFlags] = process.argv.slice(2);
const dataDir = mkdtempSync(join(tmpdir(), 'ugs-peak-memory-'));
const generator = await detectLoadGenerator();
const env = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', UGS_DATA_DIR: dataDir, UGS_SECRET: randomBytes(32).toString('hex') };
const peaks = new Map<string, number>();
const keep = (name: string, value: number) => peaks.set(name, Math.max(peaks.get(name) ?? 0, value));
try {
  const key = await createKey(env);
  const service = await startProcess(
    [...SERVICE_NODE_FLAGS, ...nodeFlags, cli, 'serve'],
    { ...env, LOG_LEVEL: 'info' },
    /"url":"(http:\/\/[^"]+)"/,
    undefined,
    generator.servicePrefix,
  );
  const mb = (bytes: number) => bytes / 2 ** 20;
  const sample = async () => {
    for (const field of ['VmHWM', 'RssAnon', 'RssFile']) keep(`${field} MB`, processStatusMb(service.child.pid!, field));
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
    keep('V8 heap in use MB', mb(gauge('nodejs_heap_size_used_bytes')));
    keep('V8 old space MB', mb(gauge('nodejs_heap_space_size_total_bytes\\{space="old"\\}')));
  };
  const sampling = setInterval(() => void sample().catch(() => {}), 200);
  const runs: string[] = [];
  try {
    const groups = await seed(service.url, key, 1000, 'peak');
    for (const name of ['hit', 'create', 'hit', 'create'] as const) {
      const scenario = SCENARIOS.find((s) => s.name === name)!;
      const m = await measure(
        generator,
        { url: service.url, key },
        { connections: 32, durationSeconds: 4 },
        { scenario, groups, runId: `${name}-${runs.length}`, side: 'service' },
      );
      runs.push(`${name} ${Math.round(m.requestsPerSecond)} req/s`);
    }
  } finally {
    clearInterval(sampling);
    await sample();
    await service.stop();
  }
  console.log(`${cli}${nodeFlags.length ? ` ${nodeFlags.join(' ')}` : ''} (${generator.description})`);
  console.log([...peaks].map(([name, value]) => `peak ${name}: ${value.toFixed(1)}`).join(', '));
  console.log(runs.join(', '));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
