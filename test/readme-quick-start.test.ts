import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from './helpers/embedded-postgres.js';
import { makeTempDir } from './helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The first ```sh block under "## Quick start", as a newcomer would paste it. */
function quickStartBlock(): string {
  const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('\n## Quick start\n'));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(match?.[1], 'README has no sh block under "## Quick start"');
  return match[1];
}

describe('README quick start', { timeout: 120_000 }, () => {
  it('pastes into bash as it is and works: key, service in the background, the three calls, a clean stop', async () => {
    const temp = makeTempDir('ugs-quick-start');
    const port = await freePort();
    try {
      // Only what a fresh clone would differ in: `npm ci` has run already, the port is free, files go to a temp dir.
      const block = quickStartBlock();
      assert.match(block, /^npm ci\b.*$/m);
      const script = block
        .replace(/^npm ci\b.*$/m, '')
        .replaceAll('localhost:8080', `localhost:${port}`)
        .replaceAll('answer.json', `${temp.path}/answer.json`);
      const result = spawnSync('bash', ['-c', `set -euo pipefail\n${script}`], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), UGS_DATA_DIR: `${temp.path}/data`, LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 110_000,
      });
      const context = `exit ${result.status}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`;
      assert.equal(result.status, 0, context);
      const answers = result.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      assert.equal(answers.length, 3, context);
      const [created, updated, rotated] = answers;
      assert.equal(created.new_user_group, true, context);
      assert.match(created.user_group.token, /^ugt_/);
      assert.deepEqual(updated.user_group.properties, { region: 'us' }, context);
      assert.equal(rotated.success, 1, context);
      assert.notEqual(rotated.user_group.token, created.user_group.token);
      assert.equal(rotated.user_group.team_id, created.user_group.team_id);
    } finally {
      temp.remove();
    }
  });
});
