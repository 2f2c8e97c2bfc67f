import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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

/** Runs `ugs ...args` in a child process with the given extra environment. */
export function runCli(args: string[], env: Record<string, string> = {}, place: CliPlace = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [place.cliPath ?? CLI_PATH, ...args], { cwd: place.cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
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
