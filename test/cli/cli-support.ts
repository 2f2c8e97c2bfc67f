import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastLine, runCli, spawnCli, spawnServer, type CliPlace, type CliResult, type ServerProcess } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * Shared bits of the CLI tests: temp data dirs that are removed afterwards,
 * `ugs` runs bound to one data dir (in process, or as a child process where
 * the process matters), and servers that are always stopped, even when a test
 * fails half-way.
 */

/** Settings that would change behaviour if the runner's environment happened to set them. */
const NEUTRAL_ENV = { UGS_SECRET: '', LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1' };

export const API_KEY = /^ugsk_[0-9A-Za-z]{49}$/;
export const KEY_ID = /^key_[0-9a-f]{16}$/;
/** The line every command that opens a store prints on stderr first, naming that store (run-command.ts). */
export const STORE_LINE = /^ugs: store: /;
/** A line of a JavaScript stack trace. */
export const STACK_LINE = '    at ';

export interface KeyView {
  id: string;
  name: string | null;
  environment: string;
  access: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Owns the temp dirs and server processes of one test file; call `cleanup()` in `after`. */
export class Sandbox {
  private readonly removers: (() => void)[] = [];
  private readonly servers: ServerProcess[] = [];

  /** A fresh, empty data dir. */
  dir(label = 'ugs-cli'): string {
    const temp = makeTempDir(label);
    this.removers.push(temp.remove);
    return temp.path;
  }

  /**
   * `ugs ...args` on `dataDir` (`''`: the default one), with a neutral environment plus `env` (and `stdin` piped in); in this process,
   * except `ugs serve`, which runs as a child process: it keeps listening, and sets V8 flags and signal handlers.
   */
  ugs(dataDir: string, args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
    return args[0] === 'serve'
      ? this.ugsProcess(dataDir, args, env)
      : runCli(args, { ...NEUTRAL_ENV, UGS_DATA_DIR: dataDir, ...env }, stdin);
  }

  /** `ugs ...args` as `ugs` above, in a child process (of the build at `place.cliPath`, in `place.cwd`). */
  ugsProcess(dataDir: string, args: string[], env: Record<string, string> = {}, place: CliPlace = {}): Promise<CliResult> {
    return spawnCli(args, { ...NEUTRAL_ENV, UGS_DATA_DIR: dataDir, ...env }, place);
  }

  /** `ugs keys create ...args`; asserts success and returns the printed key and its id. */
  async createKey(
    dataDir: string,
    args: string[] = [],
    env: Record<string, string> = {},
  ): Promise<{ key: string; id: string; result: CliResult }> {
    const result = await this.ugs(dataDir, ['keys', 'create', ...args], env);
    assert.equal(result.code, 0, result.stderr);
    const key = lastLine(result.stdout);
    assert.match(key, API_KEY);
    const id = /\b(key_[0-9a-f]{16})\b/.exec(result.stdout)?.[1];
    assert.ok(id, `no key id in:\n${result.stdout}`);
    return { key, id, result };
  }

  /** `ugs keys list --json`, parsed. */
  async listKeys(dataDir: string, env: Record<string, string> = {}): Promise<{ keys: KeyView[]; result: CliResult }> {
    const result = await this.ugs(dataDir, ['keys', 'list', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    return { keys: JSON.parse(result.stdout) as KeyView[], result };
  }

  /** `ugs serve` on `dataDir` (port 0, 127.0.0.1); killed in `cleanup()` if a test leaves it running. */
  async serve(dataDir: string, env: Record<string, string> = {}, place: CliPlace = {}): Promise<ServerProcess> {
    const server = await spawnServer({ ...NEUTRAL_ENV, UGS_DATA_DIR: dataDir, ...env }, place);
    this.servers.push(server);
    return server;
  }

  async cleanup(): Promise<void> {
    for (const server of this.servers) {
      if (isRunning(server)) await server.stop('SIGKILL');
    }
    for (const remove of this.removers) remove();
  }
}

export function isRunning(server: ServerProcess): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/** Awaits `promise`, failing (rather than hanging) if it takes longer than a generous bound. */
export async function withinBound<T>(promise: Promise<T>, boundMs: number, what: string): Promise<T> {
  const timeout = Symbol('timeout');
  const outcome = await Promise.race([promise, sleep(boundMs, timeout, { ref: false })]);
  if (outcome === timeout) assert.fail(`gave up waiting for ${what} after ${boundMs} ms`);
  return outcome as T;
}

/** Sends `signal` and returns the exit code; fails (rather than hangs) if the process outlives a generous bound. */
export async function stopServer(server: ServerProcess, signal: NodeJS.Signals = 'SIGTERM', boundMs = 20_000): Promise<number | null> {
  try {
    return await withinBound(server.stop(signal), boundMs, `the server to exit on ${signal}`);
  } catch (error) {
    server.child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}:\n${server.output()}`);
  }
}

/** Polls the server's output until `pattern` appears, for at most `boundMs`. */
export async function waitForOutput(server: ServerProcess, pattern: RegExp | string, boundMs = 30_000): Promise<void> {
  const step = 25;
  for (let waited = 0; waited <= boundMs; waited += step) {
    const output = server.output();
    if (typeof pattern === 'string' ? output.includes(pattern) : pattern.test(output)) return;
    if (!isRunning(server)) break;
    await sleep(step);
  }
  assert.fail(`the server output never matched ${String(pattern)}:\n${server.output()}`);
}

/** The non-empty lines of a stream. */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
}

/** What a command printed on stderr besides the line naming its store. */
export function errorLines(stderr: string): string[] {
  return lines(stderr).filter((line) => !STORE_LINE.test(line));
}

/** A failure reported as exactly one line on stderr (besides the store line, when a store was opened), without a stack trace. */
export function assertOneLineFailure(result: CliResult, mentions: (string | RegExp)[]): void {
  assert.notEqual(result.code, 0, `expected a failing exit code; stdout:\n${result.stdout}`);
  assert.ok(!result.stderr.includes(STACK_LINE), `stack trace on stderr:\n${result.stderr}`);
  assert.equal(errorLines(result.stderr).length, 1, `expected one line on stderr, got:\n${result.stderr}`);
  for (const mention of mentions) {
    if (typeof mention === 'string') assert.ok(result.stderr.includes(mention), `stderr does not mention ${mention}:\n${result.stderr}`);
    else assert.match(result.stderr, mention);
  }
}
