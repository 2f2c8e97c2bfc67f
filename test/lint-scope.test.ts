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

  it('keeps the store behind the composition root: only src/store, src/services.ts and `ugs import` may import it', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(`import type { Store } from '${from}';\nexport type Probe = Store;\n`, { filePath: `${ROOT}/${file}` });
      return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
    };
    for (const [file, from] of [
      ['src/http/routes/probe.ts', '../../store/store.js'],
      ['src/metrics/probe.ts', '../store/store.js'],
      ['src/cli/commands/probe.ts', '../../store/open-store.js'],
      ['src/probe.ts', './store/sqlite/sqlite-store.js'],
      ['src/domain/probe.ts', '../store/store.js'],
    ]) {
      assert.equal(await restricted(file!, from!), true, `${file} may import ${from}`);
    }
    for (const [file, from] of [
      ['src/services.ts', './store/store.js'],
      ['src/import-into-store.ts', './store/store.js'],
      ['src/store/sqlite/probe.ts', '../store.js'],
    ]) {
      assert.equal(await restricted(file!, from!), false, `${file} may not import ${from}`);
    }
  });

  it('keeps serving out of what every CLI command loads: the settings and the core import no HTTP and not src/serving.ts', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(`import { probe } from '${from}';\nexport const value = probe;\n`, { filePath: `${ROOT}/${file}` });
      return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
    };
    for (const [file, from] of [
      ['src/services.ts', './http/app.js'],
      ['src/services.ts', './serving.js'],
      ['src/config.ts', './http/trusted-proxies.js'],
      ['src/config.ts', './store/open-store.js'],
    ]) {
      assert.equal(await restricted(file!, from!), true, `${file} may import ${from}`);
    }
    for (const [file, from] of [
      ['src/serving.ts', './http/app.js'],
      ['src/services.ts', './domain/user-group-service.js'],
    ]) {
      assert.equal(await restricted(file!, from!), false, `${file} may not import ${from}`);
    }
  });
});
