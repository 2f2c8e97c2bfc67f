import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { Sandbox } from './cli-support.js';

/** The repository root, from dist/test/cli/. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('npx ugs', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  /**
   * The first `npm exec` in a checkout installs the checkout into npm's npx cache, which ran its `prepare`
   * (`npm run build`, now `postprepare`): in the repository itself, that rewrote dist/src under the tests
   * running beside this one. So it runs in a copy of what a clone holds (sources, configs, the build, node_modules
   * linked).
   */
  function copyOfCheckout(): string {
    const copy = sandbox.dir('ugs-npx-checkout');
    for (const entry of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts', 'dist/src'])
      cpSync(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
    return copy;
  }

  it('runs the package bin from the root of a checkout', { timeout: 240_000 }, async () => {
    const dataDir = sandbox.dir();
    const checkout = copyOfCheckout();
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = execFile(
        'npm',
        ['exec', '--no', '--', 'ugs', '--help'],
        // --no: never download a package called "ugs"; only the local bin may answer.
        { cwd: checkout, env: { ...process.env, UGS_DATA_DIR: dataDir }, timeout: 200_000, killSignal: 'SIGKILL' },
        (error, out, err) => {
          if (error && typeof error.code !== 'number') return reject(Object.assign(error, { stderr: err }));
          resolve({ code: child.exitCode, stdout: out, stderr: err });
        },
      );
    });
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^Usage: ugs /m);
    assert.match(stdout, /\bserve\b/);
    assert.match(stdout, /\bkeys\b/);
    assert.match(stdout, /\bmigrate\b/);
  });

  /** `npm exec` with `args` in `cwd`, never downloading a package (--no): only the checkout's own bins may answer. */
  function npmExec(args: string[], cwd: string, env: Record<string, string | undefined>) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = execFile('npm', ['exec', '--no', ...args], { cwd, env, timeout: 200_000, killSignal: 'SIGKILL' }, (error, out, err) => {
        if (error && typeof error.code !== 'number') return reject(Object.assign(error, { stderr: err }));
        resolve({ code: child.exitCode, stdout: out, stderr: err });
      });
    });
  }

  it(
    "runs as user-group-service from any directory with npx --prefix, on the checkout's data dir, as README's CLI section says",
    { timeout: 240_000 },
    async () => {
      const checkout = copyOfCheckout();
      const elsewhere = sandbox.dir('ugs-npx-elsewhere');
      // No UGS_DATA_DIR: the data dir is the checkout's, wherever the command runs.
      const env = { ...process.env, UGS_DATA_DIR: undefined };
      const help = await npmExec(['--prefix', checkout, '--', 'user-group-service', '--help'], elsewhere, env);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /^Usage: user-group-service \[options\] \[command\]/m);
      assert.match(help.stdout, /\bgroups\b/);
      const created = await npmExec(['--prefix', checkout, '--', 'user-group-service', 'keys', 'create'], elsewhere, env);
      assert.equal(created.code, 0, created.stderr);
      assert.match(
        created.stderr,
        new RegExp(`^ugs: store: SQLite in ${join(checkout, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `, 'm'),
      );
      assert.deepEqual(readdirSync(elsewhere), [], 'nothing was written where the command ran');
    },
  );

  it("ugs --version (and -V) prints package.json's version alone, opening no store", async () => {
    const { version } = JSON.parse(readFileSync(new URL('package.json', `file://${REPO_ROOT}`), 'utf8')) as { version: string };
    const dataDir = sandbox.dir();
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { UGS_DATA_DIR: dataDir });
      assert.deepEqual([result.code, result.stdout, result.stderr], [0, `${version}\n`, ''], flag);
    }
  });
});
