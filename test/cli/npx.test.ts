import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { Sandbox } from './cli-support.js';

/** The repository root, from dist/test/cli/. */
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('npx ugs', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('runs the package bin from the repository root', async () => {
    const dataDir = sandbox.dir();
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = execFile(
        'npm',
        ['exec', '--no', '--', 'ugs', '--help'],
        // --no: never download a package called "ugs"; only the local bin may answer.
        { cwd: REPO_ROOT, env: { ...process.env, UGS_DATA_DIR: dataDir }, timeout: 60_000, killSignal: 'SIGKILL' },
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
