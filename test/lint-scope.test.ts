import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import tseslint from 'typescript-eslint';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The probes below lint files that do not exist; the type-checked rules need a file the TypeScript project holds,
 * and these checks need no types.
 */
const untypedEslint = () => new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

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

  it('keeps the store behind the composition root: only src/store, src/app/core.ts and `ugs import` (src/app/import-into-store.ts) may import it', async () => {
    const eslint = untypedEslint();
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(`import type { Store } from '${from}';\nexport type Probe = Store;\n`, {
        filePath: `${ROOT}/${file}`,
      });
      return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
    };
    for (const [file, from] of [
      ['src/platform/http/probe.ts', '../../store/store.js'],
      ['src/app/http/probe.ts', '../../store/store.js'],
      ['src/app/metrics/probe.ts', '../../store/store.js'],
      ['src/cli/commands/probe.ts', '../../store/open-store.js'],
      ['src/probe.ts', './store/sqlite/sqlite-store.js'],
      ['src/user-groups/probe.ts', '../store/store.js'],
      ['src/webhooks/http/probe.ts', '../../store/sqlite/sqlite-store.js'],
    ]) {
      assert.equal(await restricted(file!, from!), true, `${file} may import ${from}`);
    }
    for (const [file, from] of [
      ['src/app/core.ts', '../store/store.js'],
      ['src/app/import-into-store.ts', '../store/store.js'],
      ['src/store/sqlite/probe.ts', '../store.js'],
    ]) {
      assert.equal(await restricted(file!, from!), false, `${file} may not import ${from}`);
    }
  });

  it("keeps a concept's core free of adapters, plumbing and drivers, and lets its http/ and pages/ use them", async () => {
    const eslint = untypedEslint();
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(`import { probe } from '${from}';\nexport const value = probe;\n`, {
        filePath: `${ROOT}/${file}`,
      });
      return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
    };
    for (const [file, from] of [
      ['src/user-groups/probe.ts', './http/user-group-view.js'],
      ['src/user-groups/probe.ts', '../platform/http/route-docs.js'],
      ['src/user-groups/probe.ts', '../app/core.js'],
      ['src/webhooks/probe.ts', './delivery/webhook-worker.js'],
      ['src/secrets/probe.ts', '../app/server-secret.js'],
      ['src/events/probe.ts', '../platform/config.js'],
      ['src/consequences/probe.ts', '../platform/config.js'],
      ['src/kernel/probe.ts', 'fastify'],
      ['src/embed-sessions/probe.ts', 'pg'],
      ['src/api-keys/probe.ts', 'better-sqlite3'],
    ]) {
      assert.equal(await restricted(file!, from!), true, `${file} may import ${from}`);
    }
    for (const [file, from] of [
      ['src/user-groups/probe.ts', '../kernel/errors.js'],
      ['src/user-groups/http/probe.ts', 'fastify'],
      ['src/user-groups/http/probe.ts', '../../platform/http/route-docs.js'],
      ['src/webhooks/pages/probe.ts', '../../console/pages/console-errors.js'],
    ]) {
      assert.equal(await restricted(file!, from!), false, `${file} may not import ${from}`);
    }
  });

  it('keeps serving out of what every CLI command loads: the settings and the core import no HTTP and not src/app/serving.ts', async () => {
    // Import rules need no types: without them these files are not type-checked whole (15 s of the suite).
    const eslint = untypedEslint();
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(`import { probe } from '${from}';\nexport const value = probe;\n`, {
        filePath: `${ROOT}/${file}`,
      });
      return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
    };
    for (const [file, from] of [
      ['src/app/core.ts', './http/app.js'],
      ['src/app/core.ts', './serving.js'],
      ['src/app/core.ts', '../platform/http/logger.js'],
      ['src/platform/config.ts', './http/trusted-proxies.js'],
      ['src/platform/config.ts', './store/open-store.js'],
    ]) {
      assert.equal(await restricted(file!, from!), true, `${file} may import ${from}`);
    }
    for (const [file, from] of [
      ['src/app/serving.ts', './http/app.js'],
      ['src/app/core.ts', '../user-groups/user-group-service.js'],
    ]) {
      assert.equal(await restricted(file!, from!), false, `${file} may not import ${from}`);
    }
  });

  it('keeps the layer order of LAYERS in eslint.config.js: a folder imports nothing of a folder above it', async () => {
    const eslint = untypedEslint();
    const restricted = async (file: string, from: string) => {
      const [result] = await eslint.lintText(`import { probe } from '${from}';\nexport const value = probe;\n`, {
        filePath: `${ROOT}/${file}`,
      });
      return result!.messages.some((m) => m.ruleId === '@typescript-eslint/no-restricted-imports');
    };
    for (const [file, from] of [
      ['src/kernel/probe.ts', '../user-groups/user-group.js'],
      ['src/platform/http/probe.ts', '../../user-groups/user-group.js'],
      ['src/consequences/probe.ts', '../embed-sessions/embed-session.js'],
      ['src/user-groups/probe.ts', '../viewers/viewer.js'],
      ['src/user-groups/pages/probe.ts', '../../viewers/pages/viewer-form.js'],
      ['src/webhooks/http/probe.ts', '../../app/core.js'],
      ['src/store/sqlite/probe.ts', '../../app/core.js'],
    ]) {
      assert.equal(await restricted(file!, from!), true, `${file} may import ${from}`);
    }
    for (const [file, from] of [
      ['src/viewers/probe.ts', '../user-groups/user-group.js'],
      ['src/viewers/pages/probe.ts', '../../user-groups/pages/group-page-routes.js'],
      ['src/consequences/probe.ts', '../events/event.js'],
      ['src/app/probe.ts', '../webhooks/http/create-webhook.js'],
      ['src/cli/commands/probe.ts', '../../app/core.js'],
    ]) {
      assert.equal(await restricted(file!, from!), false, `${file} may not import ${from}`);
    }
  });

  it('flags a promise left floating or handed where nothing awaits it, in src and in the tests alike', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const source = [
      'export async function save(): Promise<void> {}',
      'export function caller(): void {',
      '  save();',
      '  [1].forEach(async () => save());',
      '  void save(); // meant to run on its own',
      '}',
      '',
    ].join('\n');
    // Files the project holds, read with this text in place of theirs.
    for (const file of ['src/index.ts', 'test/lint-scope.test.ts']) {
      const [result] = await eslint.lintText(source, { filePath: `${ROOT}/${file}` });
      const found = result!.messages.map((m) => `${m.line}:${m.ruleId}`);
      assert.deepEqual(found, ['3:@typescript-eslint/no-floating-promises', '4:@typescript-eslint/no-misused-promises'], file);
    }
  });

  it("holds comments and code to Prettier's width, and lets a string Prettier cannot break run past it", async () => {
    const eslint = untypedEslint();
    const config = await prettier.resolveConfig(`${ROOT}/src/index.ts`);
    const width = config?.printWidth;
    assert.equal(typeof width, 'number', 'Prettier has a printWidth for src');
    const over = 'x'.repeat(width!);
    const source = [
      `// ${over}`,
      `export const message = '${over}';`,
      `export const url = 'https://example.com/${over}';`,
      `export const ${over}Probe = 1;`,
      '',
    ].join('\n');
    const [result] = await eslint.lintText(source, { filePath: `${ROOT}/src/probe.ts` });
    assert.deepEqual(
      result!.messages.map((m) => `${m.line}:${m.ruleId}`),
      ['1:max-len', '4:max-len'],
    );
  });

  it('formats the sources, not what is generated, installed or written by hand as prose', async () => {
    for (const formatted of ['src/index.ts', 'test/readme.test.ts', 'eslint.config.js', 'package.json', 'src/console/assets/console.css']) {
      const info = await prettier.getFileInfo(`${ROOT}/${formatted}`, { ignorePath: [`${ROOT}/.gitignore`, `${ROOT}/.prettierignore`] });
      assert.equal(info.ignored, false, `${formatted} would not be formatted`);
      assert.notEqual(info.inferredParser, null, `Prettier has no parser for ${formatted}`);
    }
    for (const skipped of [
      'dist/src/index.js',
      'package-lock.json',
      'README.md',
      'docs/errors.md',
      'src/console/views/layout.eta',
      'data/probe.json',
    ]) {
      const info = await prettier.getFileInfo(`${ROOT}/${skipped}`, { ignorePath: [`${ROOT}/.gitignore`, `${ROOT}/.prettierignore`] });
      assert.ok(info.ignored || info.inferredParser === null, `${skipped} would be formatted`);
    }
  });
});
