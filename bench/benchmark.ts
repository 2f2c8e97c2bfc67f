import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { CannedReply } from './canned-reply.js';
import { detectLoadGenerator, measure, type LoadGenerator, type Measurement, type Traffic } from './load-generator.js';
import { SCENARIOS, type Scenario, type SeedGroup } from './scenarios.js';

export type { Measurement } from './load-generator.js';

export const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
/**
 * Node flags of `npm start`, so the service is measured as it is run
 * (test/bench/bench-smoke.slow.long.test.ts checks that they match): a young generation
 * of at most 2 x 8 MB instead of V8's 2 x 16 MB keeps the peak RSS at 1M groups
 * near 140 MB instead of 200 MB, at no throughput cost the benchmark can see.
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8'];
const CEILING = fileURLToPath(new URL('./ceiling-server.js', import.meta.url));
const FRAMEWORK_FLOOR = fileURLToPath(new URL('./framework-floor-server.js', import.meta.url));
/**
 * Unmeasured run before measuring, so the JIT's first seconds are not in the figures: after 1 s, V8's background
 * compilation still took ~11 µs of a create's CPU per request (perf, issue 42); after 3 s it had settled.
 */
export const WARMUP_SECONDS = 3;

export interface BenchOptions {
  stores: { name: string; env: Record<string, string> }[];
  scenarios: Scenario['name'][];
  connections: number;
  durationSeconds: number;
  pairs: number;
  seedGroups: number;
  /** UGS_WORKERS for the service, and as many ceiling processes. */
  workers: number;
  log?: (line: string) => void;
  /** Pinned wrk or unpinned autocannon; detected from the machine when not given. */
  generator?: LoadGenerator;
}

export interface ScenarioResult {
  store: string;
  scenario: Scenario['name'];
  service: Measurement[];
  ceiling: Measurement[];
  /** Median of service/ceiling throughput over the A/B pairs. */
  ratio: number;
  /** The service's answer to a sample request, which the ceiling gave every request (and the framework floor gives, for hit). */
  reply: CannedReply;
}

export interface Proc {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a process and waits for `ready` in its standard output. The output
 * goes to a file, as a service's log would in production, never through this
 * process: this process is also the load generator, and reading a log line per
 * request took a core of this machine's two from it when the load generator ran here (autocannon, unpinned).
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  stdin?: string,
  prefix: string[] = [],
): Promise<Proc> {
  const logDir = mkdtempSync(join(tmpdir(), 'ugs-bench-out-'));
  const logPath = join(logDir, 'stdout.log');
  const logFd = openSync(logPath, 'w');
  // taskset execs node, so the child's pid is the measured process's own.
  const [command, ...rest] = [...prefix, process.execPath, ...args];
  const child = spawn(command!, rest, { env: { ...process.env, ...env }, stdio: ['pipe', logFd, 'pipe'] });
  closeSync(logFd);
  child.stdin!.end(stdin);
  let errors = '';
  child.stderr!.on('data', (c: Buffer) => (errors += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const deadline = Date.now() + 30_000;
      let gone = false;
      void exited.then(() => (gone = true));
      const poll = () => {
        const output = readFileSync(logPath, 'utf8');
        const match = ready.exec(output);
        if (match?.[1]) resolve(match[1].startsWith('http') ? match[1] : `http://127.0.0.1:${match[1]}`);
        else if (gone || Date.now() > deadline) reject(new Error(`did not start (exit code ${child.exitCode}): ${output}${errors}`));
        else setTimeout(poll, 20);
      };
      poll();
    });
    return {
      child,
      url,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
        rmSync(logDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(logDir, { recursive: true, force: true });
    throw error;
  }
}

/** One request with a JSON body over node:http (GET bodies included). */
function call(
  url: string,
  method: string,
  key: string,
  body: unknown,
  path = '/api/user',
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method,
        headers: { authorization: `Token ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A sample answer that rotated a group's token: the next runs must present the new one. */
function keepToken(groups: SeedGroup[], answer: { status: number; text: string }): void {
  if (answer.status !== 200) return;
  const group = (JSON.parse(answer.text) as { user_group?: { provided_id?: string; token?: string } }).user_group;
  const seeded = group && groups.find((g) => g.id === group.provided_id);
  if (seeded && group?.token) seeded.token = group.token;
}

/** `cli`: the build whose store this is (bench/ab-builds.ts compares two builds, whose migrations may differ). */
export async function createKey(env: Record<string, string>, cli = CLI): Promise<string> {
  const child = spawn(process.execPath, [cli, 'keys', 'create', '--name', 'bench'], { env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error('keys create failed');
  return out.trim().split('\n').at(-1)!;
}

export async function seed(url: string, key: string, count: number, prefix: string): Promise<SeedGroup[]> {
  const groups: SeedGroup[] = [];
  const batch = 32;
  for (let i = 0; i < count; i += batch) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, (_, j) =>
        call(url, 'GET', key, { user_group_id: `${prefix}-${i + j}`, name: `Seed ${i + j}`, properties: { region: 'eu' } }),
      ),
    );
    for (const a of answers) {
      const group = JSON.parse(a.text).user_group;
      groups.push({ id: group.provided_id, token: group.token });
    }
  }
  return groups;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

interface Side {
  url: string;
  pid: number | undefined;
  /** The traffic of one run; `runId` is unique per run. */
  traffic(runId: string): Traffic;
}

/**
 * An unmeasured warm-up of both sides, so neither pays the JIT's first second
 * inside a measured run, then A B A B ... runs; the ratio is the median of the
 * per-pair ratios of a to b.
 */
async function alternate(
  generator: LoadGenerator,
  a: Side,
  b: Side,
  key: string,
  options: Pick<BenchOptions, 'connections' | 'durationSeconds' | 'pairs'>,
): Promise<{ a: Measurement[]; b: Measurement[]; ratio: number }> {
  const warmup = { ...options, durationSeconds: WARMUP_SECONDS };
  await measure(generator, { url: a.url, key }, warmup, a.traffic(`${Date.now()}-warmup`));
  await measure(generator, { url: b.url, key }, warmup, b.traffic(`${Date.now()}-warmup`));
  const runs = { a: [] as Measurement[], b: [] as Measurement[], ratio: 0 };
  for (let pair = 0; pair < options.pairs; pair++) {
    runs.a.push(await measure(generator, { url: a.url, key, pid: a.pid }, options, a.traffic(`${Date.now()}-${pair}`)));
    runs.b.push(await measure(generator, { url: b.url, key, pid: b.pid }, options, b.traffic(`${Date.now()}-${pair}`)));
  }
  runs.ratio = median(runs.a.map((m, i) => m.requestsPerSecond / (runs.b[i]!.requestsPerSecond || 1)));
  return runs;
}

/** The ceiling of one scenario: a bare server answering with the bytes of a real answer the service gave to it. */
export async function startCeiling(
  serviceUrl: string,
  key: string,
  scenario: Scenario,
  groups: SeedGroup[],
  workers: number,
  prefix: string[],
): Promise<Proc & { reply: CannedReply }> {
  const [sample] = scenario.requests(groups, `sample-${Date.now()}`);
  const setup = typeof sample!.setupRequest === 'function' ? sample!.setupRequest({ ...sample! }, {}) : sample!;
  const real = await call(serviceUrl, String(sample!.method), key, JSON.parse(String((setup as { body?: string }).body)), sample!.path);
  keepToken(groups, real);
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control']) if (real.headers[name] !== undefined) headers[name] = real.headers[name];
  const reply: CannedReply = { status: real.status, headers, body: real.text };
  return { ...(await startCannedServer('ceiling', reply, prefix, { WORKERS: String(workers) })), reply };
}

/** A server of canned bytes, its own process like the service: the ceiling, or the framework floor. */
export function startCannedServer(
  kind: 'ceiling' | 'floor',
  reply: CannedReply,
  prefix: string[],
  env: Record<string, string> = {},
): Promise<Proc> {
  return startProcess([kind === 'ceiling' ? CEILING : FRAMEWORK_FLOOR], env, /"port":(\d+)/, JSON.stringify(reply), prefix);
}

/** Runs every scenario on every store, alternating service and ceiling runs (A B A B ...). */
export async function runBenchmark(options: BenchOptions): Promise<ScenarioResult[]> {
  const log = options.log ?? (() => {});
  const generator = options.generator ?? (await detectLoadGenerator());
  const results: ScenarioResult[] = [];
  for (const store of options.stores) {
    const env = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...store.env };
    const key = await createKey(env);
    const service = await startProcess(
      [...SERVICE_NODE_FLAGS, CLI, 'serve'],
      { ...env, LOG_LEVEL: 'info', UGS_WORKERS: String(options.workers) },
      /"url":"(http:\/\/[^"]+)"/,
      undefined,
      generator.servicePrefix,
    );
    try {
      log(`${store.name}: seeding ${options.seedGroups} groups`);
      const groups = await seed(service.url, key, options.seedGroups, `seed-${Date.now()}`);
      for (const scenario of SCENARIOS.filter((s) => options.scenarios.includes(s.name))) {
        const ceiling = await startCeiling(service.url, key, scenario, groups, options.workers, generator.servicePrefix);
        try {
          const runs = await alternate(
            generator,
            {
              url: service.url,
              pid: service.child.pid,
              traffic: (runId) => ({ scenario, groups, runId: `run-${runId}`, side: 'service' }),
            },
            {
              url: ceiling.url,
              pid: ceiling.child.pid,
              traffic: (runId) => ({ scenario, groups, runId: `ceiling-${runId}`, side: 'ceiling' }),
            },
            key,
            options,
          );
          const result: ScenarioResult = {
            store: store.name,
            scenario: scenario.name,
            service: runs.a,
            ceiling: runs.b,
            ratio: runs.ratio,
            reply: ceiling.reply,
          };
          log(
            `${store.name} ${scenario.name}: ${Math.round(median(result.service.map((m) => m.requestsPerSecond)))} req/s, ratio ${result.ratio.toFixed(2)}`,
          );
          results.push(result);
        } finally {
          await ceiling.stop();
        }
      }
    } finally {
      await service.stop();
    }
  }
  return results;
}

/**
 * The framework alone (bench/framework-floor-server.ts) against the ceiling,
 * one process each, on hit traffic, both answering `reply` (the hit scenario's
 * answer from the service): the ratio no service built on Fastify with the
 * service's access log line can exceed on this machine. The requests have the
 * shape of the service's (ids as the seed makes them, a key as long as an API
 * key), though the floor checks neither.
 */
export async function runFrameworkFloor(
  options: Pick<BenchOptions, 'connections' | 'durationSeconds' | 'pairs' | 'generator'> & { reply: CannedReply; seedGroups?: number },
): Promise<{ floor: Measurement[]; ceiling: Measurement[]; ratio: number }> {
  const generator = options.generator ?? (await detectLoadGenerator());
  const prefix = `seed-${Date.now()}`;
  const groups = Array.from({ length: options.seedGroups ?? 1000 }, (_, i) => ({ id: `${prefix}-${i}`, token: '' }));
  const key = `ugsk_${'x'.repeat(49)}`;
  const hit = SCENARIOS.find((s) => s.name === 'hit')!;
  const floor = await startCannedServer('floor', options.reply, generator.servicePrefix);
  const ceiling = await startCannedServer('ceiling', options.reply, generator.servicePrefix);
  try {
    const runs = await alternate(
      generator,
      { url: floor.url, pid: floor.child.pid, traffic: (runId) => ({ scenario: hit, groups, runId, side: 'service' }) },
      { url: ceiling.url, pid: ceiling.child.pid, traffic: (runId) => ({ scenario: hit, groups, runId, side: 'ceiling' }) },
      key,
      options,
    );
    return { floor: runs.a, ceiling: runs.b, ratio: runs.ratio };
  } finally {
    await floor.stop();
    await ceiling.stop();
  }
}

/** Median CPU µs per request over the runs; undefined without /proc. */
export function medianCpuMicros(runs: Measurement[]): number | undefined {
  const known = runs.map((m) => m.cpuMicrosPerRequest).filter((v): v is number => v !== undefined);
  return known.length === 0 ? undefined : median(known);
}

/** Median CPU µs per request over the runs, or '-' without /proc. */
export function cpuPerRequest(runs: Measurement[]): string {
  const micros = medianCpuMicros(runs);
  return micros === undefined ? '-' : String(Math.round(micros));
}

export function formatTable(results: ScenarioResult[]): string {
  const rows = results.map((r) => [
    r.scenario,
    r.store,
    Math.round(median(r.service.map((m) => m.requestsPerSecond))),
    Math.round(median(r.ceiling.map((m) => m.requestsPerSecond))),
    r.ratio.toFixed(2),
    cpuPerRequest(r.service),
    cpuPerRequest(r.ceiling),
    median(r.service.map((m) => m.p99)),
    r.service.reduce((n, m) => n + m.non2xx + m.errors, 0),
  ]);
  // CPU per request is what each side spent, free of the load generator's share of the machine;
  // the ratio is the median of per-pair ratios, so a slow spell falls on both sides of a pair.
  const header = [
    'path',
    'store',
    'service req/s',
    'ceiling req/s',
    'ratio',
    'service CPU µs/req',
    'ceiling CPU µs/req',
    'service p99 ms',
    'non-2xx+errors',
  ];
  const lines = [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  return lines.join('\n');
}
