import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('eslint . (npm run lint)', () => {
  it('skips every folder git ignores and lints the sources', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const ignored of ['.tmp/probe.js', '.postgres/data/probe.js', 'data/probe.js', 'dist/src/index.js', 'node_modules/x/index.js']) {
      assert.equal(await eslint.isPathIgnored(`${ROOT}/${ignored}`), true, `${ignored} would be linted`);
    }
    for (const linted of ['src/index.ts', 'test/readme.test.ts', 'bench/main.ts', 'eslint.config.js']) {
      assert.equal(await eslint.isPathIgnored(`${ROOT}/${linted}`), false, `${linted} would be skipped`);
    }
  });
});
