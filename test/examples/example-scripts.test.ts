import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { build } from '../helpers/build.js';
import { isAlive } from '../helpers/process-alive.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const EXAMPLES = Object.keys(scripts).filter((name) => name.startsWith('example:'));

/** The pids below `pid`, from /proc (children of every thread). */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/**
 * `npm run example:*` starts a long-running example. Stopping npm (SIGTERM,
 * what `kill` and process managers send) must stop the example too: npm
 * forwards the signal to its child, which used to be a shell that left the
 * example's node process running on its own.
 */
describe('npm run example:* scripts', () => {
  const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();

  it('has examples to check', () => assert.ok(EXAMPLES.length >= 2, EXAMPLES.join(', ')));

  for (const name of EXAMPLES) {
    it(`${name} stops when npm gets SIGTERM`, { timeout: 120_000 }, async (t) => {
      const service = await build(t, { kind: 'sqlite', apiKey: false });
      const { key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
      const npm = spawn(realNpm, ['run', name], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          UGS_URL: service.url,
          UGS_API_KEY: key,
          UGS_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
          PORT: '0',
          DASHBOARD_PORT: '0',
          CUSTOMER_APP_PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
      let example: number[] = [];
      try {
        // Up once it prints where it listens.
        for (let waited = 0; !/http:\/\/127\.0\.0\.1:\d+/.test(output); waited += 100) {
          assert.ok(waited < 60_000 && npm.exitCode === null, `the example did not start:\n${output}`);
          await sleep(100);
        }
        example = descendants(npm.pid!).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`dist/examples/`));
        assert.equal(example.length, 1, `expected one example process below npm:\n${output}`);

        npm.kill('SIGTERM');
        await exited;
        for (let waited = 0; isAlive(example[0]!) && waited < 10_000; waited += 100) await sleep(100);
        assert.equal(isAlive(example[0]!), false, `the example (pid ${example[0]}) outlived npm:\n${output}`);
      } finally {
        for (const pid of example) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
        if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
        await service.close();
      }
    });
  }
});
