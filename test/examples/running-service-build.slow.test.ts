import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ConsoleClient } from '../helpers/console-client.js';
import { lastLine, spawnCli, spawnServer, type CliPlace, type ServerProcess } from '../helpers/cli.js';
import { rawRequest } from '../helpers/http-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The repository root, from dist/test/examples/. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A copy of a clone after `npm ci`: its sources, configs and build, node_modules linked. The build runs there, not
 * in the repository, whose dist/ the tests beside this one are running from. The tests' own sources are left out
 * (but for the helpers the examples import): compiling them would only make the build longer, and their outputs,
 * whose source is then gone, are what the build must remove.
 */
function copyOfClone(root: string): string {
  const copy = join(root, 'clone');
  for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'examples', 'scripts', 'dist'])
    cpSync(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
  mkdirSync(join(copy, 'test', 'helpers'), { recursive: true });
  for (const helper of ['embedded-postgres.ts', 'temp-dir.ts'])
    cpSync(join(REPO_ROOT, 'test', 'helpers', helper), join(copy, 'test', 'helpers', helper));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
  // Without its build info tsc writes every file again: the most a build can rewrite under a running service.
  rmSync(join(copy, 'dist', '.tsbuildinfo'), { force: true });
  return copy;
}

interface Npm {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function npmRun(cwd: string, args: string[], env: Record<string, string>): Npm {
  const child = spawn('npm', ['run', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

/**
 * Requests a running service the way its users do, round after round, until told to stop: console pages (templates
 * read from dist/ at each request), the API, and an embed script (read from dist/ at each request). Keeps every
 * answer that was not a 200.
 */
function keepAsking(url: string, key: string, consoleClient: ConsoleClient) {
  const failures: string[] = [];
  let answered = 0;
  let stopping = false;
  const ask = async (what: string, request: () => Promise<{ status: number; text: string }>) => {
    try {
      const { status, text } = await request();
      if (status !== 200) failures.push(`${what}: ${status} ${text.slice(0, 200)}`);
    } catch (error) {
      failures.push(`${what}: ${String(error)}`);
    }
    answered++;
  };
  const api = async (path: string) => {
    const res = await fetch(new URL(path, url), { headers: { authorization: `Token ${key}` } });
    return { status: res.status, text: await res.text() };
  };
  const loop = (async () => {
    while (!stopping) {
      await ask('/console/overview', () => consoleClient.get('/console/overview'));
      await ask('/console/groups', () => consoleClient.get('/console/groups'));
      await ask('/console/groups/acme', () => consoleClient.get('/console/groups/acme'));
      await ask('/api/user_groups', () => api('/api/user_groups'));
      await ask('/embed/ugs-embed-frame.js', () => api('/embed/ugs-embed-frame.js'));
    }
  })();
  return {
    get answered() {
      return answered;
    },
    failures,
    stop: async () => {
      stopping = true;
      await loop;
    },
  };
}

/**
 * Issue 43, item 5: `npm run example:dashboard` ran `npm run build`, which deleted dist/ and compiled it again for
 * 9-14 s while a service started from it ran: 28 of 80 console requests answered 500 (template not found), and a
 * service starting meanwhile crashed with ERR_MODULE_NOT_FOUND. Now the install builds the examples too, they start
 * at once, and a build rewrites only what changed and removes only what lost its source.
 */
describe('a service running from dist/ while an example starts and a build runs', () => {
  const scratch = makeTempDir('ugs-running-build');
  after(() => scratch.remove());
  const running: ServerProcess[] = [];
  const npms: Npm[] = [];
  after(async () => {
    for (const npm of npms) if (npm.child.exitCode === null && npm.child.signalCode === null) npm.child.kill('SIGKILL');
    for (const server of running) await server.stop();
  });

  it('keeps answering every console page and API call, and a service started during the build starts', { timeout: 600_000 }, async () => {
    const clone = copyOfClone(scratch.path);
    const place: CliPlace = { cwd: clone, cliPath: join(clone, 'dist', 'src', 'cli', 'main.js') };
    const env = { UGS_DATA_DIR: join(scratch.path, 'data'), UGS_SECRET: '' };
    const created = await spawnCli(['keys', 'create', '--environment', 'Customer'], env, place);
    assert.equal(created.code, 0, created.stderr);
    const key = lastLine(created.stdout);
    const service = await spawnServer(env, place);
    running.push(service);
    const made = await rawRequest(service.url, {
      method: 'GET',
      path: '/api/user',
      headers: { authorization: `Token ${key}`, 'content-type': 'application/json' },
      body: { user_group_id: 'acme', name: 'Acme' },
    });
    assert.equal(made.status, 200, made.text);
    const consoleClient = new ConsoleClient(service.url);
    assert.equal((await consoleClient.signIn(key)).status, 303);
    const asking = keepAsking(service.url, key, consoleClient);

    // The example starts (it built first, deleting dist/, before the fix), and is stopped once it says where it is.
    const example = npmRun(clone, ['example:dashboard'], {
      UGS_URL: service.url,
      UGS_API_KEY: key,
      DASHBOARD_PORT: '0',
      CUSTOMER_APP_PORT: '0',
    });
    npms.push(example);
    while (!/Customer app: +http:\/\/\S+:\d+/.test(example.output())) {
      assert.ok(example.child.exitCode === null && example.child.signalCode === null, `the example exited:\n${example.output()}`);
      await sleep(50);
    }
    example.child.kill('SIGTERM');
    await example.exited;
    const duringExample = asking.answered;

    // A whole build: every file compiled again (no build info), the tests' outputs removed (their sources are not in
    // the copy), and a second service started while it runs.
    const build = npmRun(clone, ['build'], {});
    npms.push(build);
    const starting = await spawnServer({ ...env, UGS_DATA_DIR: join(scratch.path, 'data-second') }, place).catch(
      (error: unknown) => error as Error,
    );
    if (!(starting instanceof Error)) running.push(starting);
    const built = await build.exited;
    await asking.stop();

    assert.equal(built, 0, build.output());
    assert.ok(!(starting instanceof Error), `a service started during the build failed:\n${String(starting)}`);
    assert.ok(duringExample > 0 && asking.answered > duringExample, `answered ${duringExample}, then ${asking.answered}`);
    assert.deepEqual(asking.failures, [], `${asking.failures.length} of ${asking.answered} requests failed`);
    // The build removed the compiled tests whose source is gone, and kept what the service and the examples run.
    assert.ok(!existsSync(join(clone, 'dist', 'test', 'readme.test.js')), 'a compiled test without its source was kept');
    for (const kept of ['src/cli/main.js', 'src/console/views/layout.eta', 'examples/dashboard/main.js', 'test/helpers/temp-dir.js'])
      assert.ok(existsSync(join(clone, 'dist', kept)), `dist/${kept} is missing`);
  });
});
