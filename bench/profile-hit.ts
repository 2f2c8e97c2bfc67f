import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI, createKey, seed, SERVICE_NODE_FLAGS, startCeiling, startProcess, WARMUP_SECONDS, type Proc } from './benchmark.js';
import { detectLoadGenerator, measure } from './load-generator.js';
import { processIo } from './process-cpu.js';
import { SCENARIOS, type Scenario } from './scenarios.js';

/**
 * `node dist/bench/profile-hit.js [scenario] [seconds] [profile-dir]`: the service (SQLite, or
 * the PostgreSQL of DATABASE_URL; 1,000 groups, `npm start`'s flags, LOG_LEVEL=info) under
 * `node --cpu-prof`, loaded as `npm run bench` loads it, then the top of the profile: self time by function and by where the code lives.
 * Scenario `floor` profiles the framework floor instead (bench/framework-floor-server.ts, answering the service's own
 * hit answer, under hit traffic); `node dist/bench/profile-diff.js` sets two profiles side by side.
 * The .cpuprofile stays in profile-dir (a temporary folder unless given) for a flame graph
 * (Chrome DevTools, speedscope).
 */
/** How long after the measured run the profiled process takes to stop: its samples are kept with the run's. */
const SHUTDOWN_SLACK_SECONDS = 0.3;

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

const scenarioName = (process.argv[2] ?? 'hit') as Scenario['name'] | 'floor';
const FRAMEWORK_FLOOR = fileURLToPath(new URL('./framework-floor-server.js', import.meta.url));
const seconds = Number(process.argv[3] ?? '10');
const profileDir = process.argv[4] ?? mkdtempSync(join(tmpdir(), 'ugs-profile-'));
const profiling = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
const dataDir = mkdtempSync(join(tmpdir(), 'ugs-profile-data-'));
const generator = await detectLoadGenerator();
// DATABASE_URL, when set, profiles the service on that PostgreSQL instead (its server's CPU is not in the profile).
const env = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  UGS_DATA_DIR: dataDir,
  UGS_SECRET: randomBytes(32).toString('hex'),
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
};
try {
  const key = await createKey(env);
  const floor = scenarioName === 'floor';
  const service = await startProcess(
    [...(floor ? [] : profiling), ...SERVICE_NODE_FLAGS, CLI, 'serve'],
    { ...env, LOG_LEVEL: 'info' },
    /"url":"(http:\/\/[^"]+)"/,
    undefined,
    generator.servicePrefix,
  );
  const scenario = SCENARIOS.find((s) => s.name === (floor ? 'hit' : scenarioName))!;
  let requests = 0;
  let profiled: Proc = service;
  try {
    const groups = await seed(service.url, key, 1000, 'profile');
    if (floor) {
      // The ceiling is started only to learn the service's hit answer, which the floor then gives every request.
      const ceiling = await startCeiling(service.url, key, scenario, groups, 1, generator.servicePrefix);
      await ceiling.stop();
      profiled = await startProcess(
        [...profiling, FRAMEWORK_FLOOR],
        {},
        /"port":(\d+)/,
        JSON.stringify(ceiling.reply),
        generator.servicePrefix,
      );
    }
    await measure(
      generator,
      { url: profiled.url, key },
      { connections: 32, durationSeconds: WARMUP_SECONDS },
      { scenario, groups, runId: 'warmup', side: 'service' },
    );
    const ioBefore = processIo(profiled.child.pid!);
    const m = await measure(
      generator,
      { url: profiled.url, key, pid: profiled.child.pid },
      { connections: 32, durationSeconds: seconds },
      { scenario, groups, runId: 'profiled', side: 'service' },
    );
    const ioAfter = processIo(profiled.child.pid!);
    requests = m.requestsPerSecond * seconds;
    console.log(
      `${scenarioName}: ${Math.round(m.requestsPerSecond)} req/s, ${m.cpuMicrosPerRequest?.toFixed(1)} CPU µs/req under the profiler (${generator.description})`,
    );
    if (ioBefore && ioAfter) {
      // Socket answers and log lines count among the write calls too (about one each per request on the hit path).
      const per = (after: number, before: number, scale = 1) => (((after - before) * scale) / requests).toFixed(1);
      console.log(
        `per request: ${per(ioAfter.userSeconds, ioBefore.userSeconds, 1e6)} µs user, ${per(ioAfter.systemSeconds, ioBefore.systemSeconds, 1e6)} µs system, ` +
          `${per(ioAfter.writeCalls, ioBefore.writeCalls)} write calls, ${per(ioAfter.bytesWritten, ioBefore.bytesWritten)} bytes written`,
      );
    }
  } finally {
    if (profiled !== service) await profiled.stop();
    await service.stop();
  }
  // The newest: a reused profile-dir keeps earlier runs' profiles.
  const file = readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .at(-1)!;
  const path = join(profileDir, file);
  // Start-up, the seeding and the warm-up are in the profile too: only the measured run's samples are kept.
  const profile = measuredWindow(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, seconds + SHUTDOWN_SLACK_SECONDS);
  writeFileSync(path, JSON.stringify(profile));
  summarize(profile, requests);
  console.log(`\nprofile (the measured run's last ${seconds + SHUTDOWN_SLACK_SECONDS} s only): ${path}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/** The profile's last `seconds`: its samples, timings and hit counts; the frames are kept whole. */
function measuredWindow(profile: CpuProfile, seconds: number): CpuProfile {
  const from = profile.endTime - seconds * 1e6;
  let at = profile.startTime;
  const times = profile.timeDeltas.map((delta) => (at += delta));
  const first = Math.max(
    0,
    times.findIndex((time) => time >= from),
  );
  const samples = profile.samples.slice(first);
  const hits = new Map<number, number>();
  for (const id of samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  return {
    ...profile,
    nodes: profile.nodes.map((node) => ({ ...node, hitCount: hits.get(node.id) ?? 0 })),
    startTime: times[first] ?? profile.startTime,
    samples,
    timeDeltas: [0, ...profile.timeDeltas.slice(first + 1)],
  };
}

/** Where a frame's code lives, coarsely: the service's own files, a package, or Node itself. */
function area(url: string, name: string): string {
  if (name === '(garbage collector)') return 'GC';
  if (name === '(idle)' || name === '(program)') return name;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/(src\/.+)$/.exec(url);
  if (own) return own[1]!.replace(/\.js$/, '');
  if (url.startsWith('node:') || url === '') return name === '' ? 'node (native)' : `node: ${url.replace('node:', '') || 'native'}`;
  return url;
}

function summarize(profile: CpuProfile, requests: number): void {
  const sampleMicros = (profile.endTime - profile.startTime) / profile.samples.length;
  const busy = profile.nodes.filter((n) => n.callFrame.functionName !== '(idle)').reduce((t, n) => t + n.hitCount, 0);
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') continue;
    const where = area(url, functionName);
    const fn = `${functionName || '(anonymous)'} ${where}${url && !url.startsWith('node:') ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.hitCount);
    const group = where.startsWith('node: ') ? 'node (internals)' : where;
    byArea.set(group, (byArea.get(group) ?? 0) + node.hitCount);
  }
  const perRequest = (hits: number) => (requests > 0 ? ((hits * sampleMicros) / requests).toFixed(2) : '-');
  const table = (title: string, rows: Map<string, number>, limit: number) => {
    console.log(`\n| ${title} | share of busy samples | µs/request |\n| --- | --- | --- |`);
    for (const [name, hits] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, limit))
      console.log(`| ${name} | ${((hits / busy) * 100).toFixed(1)}% | ${perRequest(hits)} |`);
  };
  table('where (self time)', byArea, 25);
  table('function (self time)', byFunction, 40);
}
