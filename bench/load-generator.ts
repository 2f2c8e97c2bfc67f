import autocannon from 'autocannon';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { processTreeCpuSeconds } from './process-cpu.js';
import type { Scenario, SeedGroup } from './scenarios.js';
import { wrkScript } from './wrk-script.js';

const run = promisify(execFile);

/** What one measured run answered, and what it cost the side that answered it. */
export interface Measurement {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU (user + system) the measured side's processes used per request answered; undefined without /proc. */
  cpuMicrosPerRequest: number | undefined;
}

/** The traffic of one run: a scenario over the groups, against the service or against the ceiling. */
export interface Traffic {
  scenario: Scenario;
  groups: SeedGroup[];
  /** Unique per run: new ids (create) are made from it. */
  runId: string;
  /** The ceiling answers with canned bytes, so its rotations must not change the groups' tokens. */
  side: 'service' | 'ceiling';
}

export interface Target {
  url: string;
  key: string;
  /** The root of the processes answering, for their CPU time; undefined to skip it (warm-up). */
  pid?: number | undefined;
}

/**
 * Where the measured processes run and what loads them. With 2 cores or more
 * and `taskset` and `wrk` installed, the service and the ceiling share core 0
 * and `wrk -t1` runs alone on core 1, so neither side competes with the load
 * generator and their ratio is a ratio of what one core does. Otherwise
 * autocannon runs in this process, unpinned, as everything else.
 */
export interface LoadGenerator {
  pinned: boolean;
  /** One line for the benchmark's output. */
  description: string;
  /** The command prefix that starts a measured process on its core ([] when unpinned). */
  servicePrefix: string[];
}

export const SERVICE_CORE = '0';
export const LOAD_CORE = '1';

async function installed(command: string, args: string[]): Promise<boolean> {
  try {
    await run(command, args);
    return true;
  } catch (error) {
    // wrk -v prints its version and exits 1; only a missing program is "not installed".
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export async function detectLoadGenerator(): Promise<LoadGenerator> {
  const cores = availableParallelism();
  const missing = [];
  if (!(await installed('taskset', ['-V']))) missing.push('taskset');
  if (!(await installed('wrk', ['-v']))) missing.push('wrk');
  if (cores >= 2 && missing.length === 0) {
    return {
      pinned: true,
      description: `pinned: service and ceiling on core ${SERVICE_CORE} (taskset), load from wrk -t1 on core ${LOAD_CORE}`,
      servicePrefix: ['taskset', '-c', SERVICE_CORE],
    };
  }
  return unpinnedLoad(cores < 2 ? `${cores} core` : `${missing.join(' and ')} not installed`);
}

/** autocannon in this process, nothing pinned: the fallback, `why` saying what is missing. */
export function unpinnedLoad(why: string): LoadGenerator {
  return {
    pinned: false,
    description: `NOT pinned (${why}): service, ceiling and autocannon share the cores, so req/s and ratios move with the load generator's share`,
    servicePrefix: [],
  };
}

/** One run of `traffic` against `target`; CPU per request from the target's process tree. */
export async function measure(
  generator: LoadGenerator,
  target: Target,
  options: { connections: number; durationSeconds: number },
  traffic: Traffic,
): Promise<Measurement> {
  const cpuBefore = target.pid === undefined ? undefined : processTreeCpuSeconds(target.pid);
  const counts = generator.pinned ? await runWrk(target, options, traffic) : await runAutocannon(target, options, traffic);
  const cpuAfter = target.pid === undefined ? undefined : processTreeCpuSeconds(target.pid);
  const { answered, ...measurement } = counts;
  return {
    ...measurement,
    cpuMicrosPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || answered === 0 ? undefined : ((cpuAfter - cpuBefore) * 1e6) / answered,
  };
}

type Counts = Omit<Measurement, 'cpuMicrosPerRequest'> & { answered: number };

function runAutocannon(target: Target, options: { connections: number; durationSeconds: number }, traffic: Traffic): Promise<Counts> {
  // Copies for the ceiling: its canned answers must not overwrite the real groups' tokens (rotate).
  const groups = traffic.side === 'ceiling' ? traffic.groups.map((g) => ({ ...g })) : traffic.groups;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        connections: options.connections,
        duration: options.durationSeconds,
        headers: { authorization: `Token ${target.key}` },
        requests: traffic.scenario.requests(groups, traffic.runId),
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          requestsPerSecond: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          answered: result.requests.total,
        });
      },
    );
  });
}

interface WrkResult {
  requests: number;
  durationMicros: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50: number;
  p99: number;
  tokens: Record<string, string>;
}

async function runWrk(target: Target, options: { connections: number; durationSeconds: number }, traffic: Traffic): Promise<Counts> {
  const dir = mkdtempSync(join(tmpdir(), 'ugs-wrk-'));
  try {
    writeFileSync(join(dir, 'groups.txt'), traffic.groups.map((g) => `${g.id} ${g.token}`).join('\n') + '\n');
    writeFileSync(join(dir, 'script.lua'), wrkScript(traffic.scenario.name));
    const args = [
      '-c',
      LOAD_CORE,
      'wrk',
      '-t1',
      `-c${options.connections}`,
      `-d${options.durationSeconds}s`,
      '--timeout',
      '10s',
      '-s',
      join(dir, 'script.lua'),
      target.url,
    ];
    const { stdout } = await run('taskset', [...args, '--', join(dir, 'groups.txt'), traffic.runId, target.key, traffic.side], {
      maxBuffer: 64 * 2 ** 20,
    });
    const line = stdout.split('\n').find((l) => l.startsWith('WRK_RESULT '));
    if (!line) throw new Error(`wrk printed no result: ${stdout}`);
    const result = JSON.parse(line.slice('WRK_RESULT '.length)) as WrkResult;
    // The service's rotations gave these groups new tokens: the next run must present those.
    if (traffic.side === 'service') for (const group of traffic.groups) group.token = result.tokens[group.id] ?? group.token;
    // wrk counts a request that got any answer; non-2xx/3xx answers are its "status" errors.
    const answered = result.requests;
    return {
      requestsPerSecond: answered / (result.durationMicros / 1e6),
      p50: result.p50 / 1000,
      p99: result.p99 / 1000,
      non2xx: result.status,
      errors: result.connect + result.read + result.write + result.timeout,
      answered,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Moves an embedded PostgreSQL (the postmaster in `dataDir`'s postmaster.pid
 * and the processes it has started) to the load generator's core; backends it
 * forks later inherit that. Says what it did, or why not.
 */
export async function pinToLoadCore(dataDir: string): Promise<string> {
  try {
    const postmaster = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const children = (await run('pgrep', ['-P', postmaster]).catch(() => ({ stdout: '' }))).stdout.split(/\s+/).filter(Boolean);
    for (const pid of [postmaster, ...children]) await run('taskset', ['-a', '-p', '-c', LOAD_CORE, pid]);
    return `pinned to core ${LOAD_CORE} with the load generator (${1 + children.length} processes), off the service's core`;
  } catch (error) {
    return `not pinned (${(error as Error).message})`;
  }
}
