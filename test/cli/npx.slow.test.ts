import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync } from 'node:fs';
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

  it("ugs --version (and -V) prints package.json's version alone, opening no store", async () => {
    const { version } = JSON.parse(readFileSync(new URL('package.json', `file://${REPO_ROOT}`), 'utf8')) as { version: string };
    const dataDir = sandbox.dir();
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag], { UGS_DATA_DIR: dataDir });
      assert.deepEqual([result.code, result.stdout, result.stderr], [0, `${version}\n`, ''], flag);
    }
  });
});
