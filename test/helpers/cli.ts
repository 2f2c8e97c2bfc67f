import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runProgram } from '../../src/cli/program.js';

/** The built CLI, exactly what `npx ugs` runs. */
export const CLI_PATH = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where a `ugs` child process runs: its working directory, and which build's main.js (this one's by default). */
export interface CliPlace {
  cwd?: string;
  cliPath?: string;
}

/** A stream that keeps what is written to it. */
class Captured extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** The run in progress: runs wait for each other, since each sets the process's environment for its length. */
let running: Promise<unknown> = Promise.resolve();

/**
 * Runs `ugs ...args` in this process, with the given extra environment, as a
 * child process would see it (`process.env` plus `env`, restored afterwards), and `stdin` piped in.
 * What the process adds (the Node version check, a real exit) is for
 * `spawnCli`; `ugs serve` keeps listening, so it is refused here.
 */
export function runCli(args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  if (args[0] === 'serve') throw new Error('ugs serve keeps listening: run it with spawnCli or spawnServer');
  const run = running.then(() => runInProcess(args, env, stdin));
  running = run.catch(() => {});
  return run;
}

async function runInProcess(args: string[], env: Record<string, string>, stdin: string | undefined): Promise<CliResult> {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  const [stdout, stderr] = [new Captured(), new Captured()];
  try {
    // A pipe's worth of text, as `printf … | ugs …` gives it; without one, the run has no standard input at all.
    const input = stdin === undefined ? {} : { stdin: () => Readable.from([Buffer.from(stdin)]) };
    const code = await runProgram([process.execPath, CLI_PATH, ...args], { stdout, stderr, ...input });
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Runs `ugs ...args` in a child process with the given extra environment. */
export function spawnCli(args: string[], env: Record<string, string> = {}, place: CliPlace = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [place.cliPath ?? CLI_PATH, ...args], {
      cwd: place.cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The key printed by `ugs keys create`: its last non-empty line of stdout. */
export function lastLine(stdout: string): string {
  return stdout.trim().split('\n').at(-1)?.trim() ?? '';
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * How long `ugs serve` may take to say it listens before the test gives up on it: a hang detector, not a measure.
 * CI runs three process-starting files beside three test processes on two cores; there a fresh two-worker start
 * (three processes loading the service) once took over 20 s.
 */
const START_BOUND_MS = 60_000;

/** `ugs serve` as a child process on a free port; resolves once it logs that it listens. */
export function spawnServer(env: Record<string, string>, place: CliPlace = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [place.cliPath ?? CLI_PATH, 'serve'], {
    cwd: place.cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Killed, or the test file waits on it forever: no caller holds it to stop.
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${START_BOUND_MS / 1000} s:\n${output}`));
    }, START_BOUND_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({
          child,
          url: match[1],
          output: () => output,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
}
