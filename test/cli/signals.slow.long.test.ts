import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { CLI_PATH } from '../helpers/cli.js';
import { rawRequest } from '../helpers/http-client.js';
import { isRunning, Sandbox, STACK_LINE, stopServer, waitForOutput, withinBound } from './cli-support.js';

/**
 * What a supervisor sees: it starts `npm start` (or `ugs serve`), signals the
 * process it started, or its whole process group (systemd's control-group
 * kill, Ctrl-C in a terminal), and expects every process it started to be
 * gone, the store closed cleanly and exit code 0.
 */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SQLITE_WAL = 'user-groups.sqlite-wal';

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(command: string, args: string[], dataDir: string, options: { cwd?: string; detached?: boolean } = {}): Started {
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, UGS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', UGS_SECRET: '', LOG_LEVEL: 'info', UGS_WORKERS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Waits until the service logs its address and answers /healthz. */
async function waitUntilHealthy(started: Started): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    const url = /"url":"(http:\/\/[^"]+)"/.exec(started.output())?.[1];
    if (url) {
      const answer = await rawRequest(url, { method: 'GET', path: '/healthz' }).catch(() => undefined);
      if (answer?.status === 200) return;
    }
    if (started.child.exitCode !== null) break;
    await sleep(50);
  }
  assert.fail(`the service never answered /healthz:\n${started.output()}`);
}

/** Every process descended from `root` (itself included), from /proc. */
function processTree(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name, in parentheses, may hold spaces: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(Number(entry), ppid);
    } catch {
      // The process ended while we looked.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parentOf) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** Alive and not a zombie. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function assertAllGone(pids: number[], output: string): Promise<void> {
  for (let waited = 0; waited < 10_000 && pids.some(isAlive); waited += 50) await sleep(50);
  const left = pids.filter(isAlive);
  for (const pid of left) process.kill(pid, 'SIGKILL');
  assert.deepEqual(left, [], `processes of the tree outlived the signal:\n${output}`);
}

/** Starts, waits for /healthz, signals (the process or its group), and checks the whole tree stopped cleanly. */
async function signalAndCheck(
  sandbox: Sandbox,
  command: string,
  args: string[],
  signal: NodeJS.Signals,
  target: 'process' | 'group',
): Promise<void> {
  const dataDir = sandbox.dir('ugs-signals');
  const started = start(command, args, dataDir, { detached: target === 'group' });
  try {
    await waitUntilHealthy(started);
    const tree = processTree(started.child.pid!);
    assert.ok(tree.length >= 1);
    if (target === 'group') process.kill(-started.child.pid!, signal);
    else started.child.kill(signal);
    const { code, signal: killedBy } = await withinBound(started.exited, 30_000, `${command} to exit on ${signal}`);
    assert.equal(killedBy, null, `${command} was killed by ${killedBy}:\n${started.output()}`);
    assert.equal(code, 0, started.output());
    await assertAllGone(tree, started.output());
    assert.match(started.output(), /shutting down/);
    assert.ok(!started.output().includes(STACK_LINE), started.output());
    // A clean close checkpoints the WAL into the database file and removes it.
    assert.equal(existsSync(join(dataDir, SQLITE_WAL)), false, `the store was not closed cleanly:\n${started.output()}`);
  } finally {
    for (const pid of processTree(started.child.pid!)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}

describe('stopping on SIGTERM and SIGINT, as one process tree', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`npm start: ${signal} to the npm process stops every process, closes the store, exits 0`, async () => {
      await signalAndCheck(sandbox, 'npm', ['start', '--silent'], signal, 'process');
    });

    it(`npm start: ${signal} to its whole process group (a supervisor's group kill, Ctrl-C) does the same`, async () => {
      await signalAndCheck(sandbox, 'npm', ['start', '--silent'], signal, 'group');
    });

    it(`ugs serve: ${signal} stops it cleanly with exit 0, sent to the process or to its group`, async () => {
      await signalAndCheck(sandbox, process.execPath, [CLI_PATH, 'serve'], signal, 'process');
      await signalAndCheck(sandbox, process.execPath, [CLI_PATH, 'serve'], signal, 'group');
    });

    it(`ugs serve: a repeated ${signal} (the group's copy and npm's) does not cut the drain short`, async () => {
      const dataDir = sandbox.dir('ugs-signals');
      // debug: the server then logs "incoming request", which tells the test the request is in flight.
      const server = await sandbox.serve(dataDir, { LOG_LEVEL: 'debug' });
      const { key } = await sandbox.createKey(dataDir);
      const body = JSON.stringify({ user_group_id: 'drained', name: 'Drained' });
      const { hostname, port } = new URL(server.url);
      const socket = connect({ host: hostname, port: Number(port) });
      let raw = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (raw += chunk));
      const ended = new Promise<void>((resolve, reject) => {
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const head = ['GET /api/user HTTP/1.1', `Host: ${hostname}:${port}`, `Authorization: Token ${key}`, 'Content-Type: application/json'];
      socket.write([...head, `Content-Length: ${body.length}`, 'X-Request-Id: held', '', body.slice(0, 10)].join('\r\n'));
      await waitForOutput(server, /"reqId":"held".*"msg":"incoming request"/);

      server.child.kill(signal);
      await waitForOutput(server, 'shutting down');
      server.child.kill(signal);
      await waitForOutput(server, /already shutting down/);
      assert.ok(isRunning(server), `the repeat stopped the drain:\n${server.output()}`);
      socket.write(body.slice(10));
      await ended;
      assert.match(raw, /^HTTP\/1\.1 200 /, raw);
      assert.equal(await stopServer(server, signal), 0, server.output());
    });
  }
});
