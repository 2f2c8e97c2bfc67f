import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { closure, ENTRIES } from '../../scripts/build-embed-package.js';

/**
 * packages/embed (user-group-service-embed), as `npm run build` leaves it: only the files the client and embed
 * entry points reach, importing nothing but its declared dependencies and Node's own modules, and a small tarball.
 * test/scripts/embed-package-install.slow.test.ts installs it in a project of its own and uses it.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGE = join(ROOT, 'packages/embed');
const DIST = join(PACKAGE, 'dist');
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
};
const run = promisify(execFile);

describe('the light package for dashboard projects (packages/embed)', () => {
  const js = closure(
    DIST,
    ENTRIES.map((entry) => `${entry}.js`),
  );
  const types = closure(
    DIST,
    ENTRIES.map((entry) => `${entry}.d.ts`),
  );

  it('holds every file its entry points import, and imports only its dependencies and node: modules', () => {
    for (const file of [...js.files, ...types.files]) assert.ok(existsSync(join(DIST, file)), `${file} is in the package`);
    const runtime = [...js.bare].filter((name) => !name.startsWith('node:')).sort();
    assert.deepEqual(runtime, ['jose', 'pg'], 'what its code imports');
    assert.deepEqual([...types.bare].sort(), ['@sinclair/typebox', 'jose', 'pg'], 'what its declarations import');
    // pg's types are @types/pg's; typebox and @types/pg are types only: no code of theirs runs.
    assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['@sinclair/typebox', '@types/pg', 'jose', 'pg']);
    assert.ok(!js.files.some((file) => /^(app|store|cli|console|user-groups)\//.test(file)), `no server code: ${js.files}`);
  });

  it('exports files that exist, the server package the same entry points', () => {
    for (const target of Object.values(manifest.exports)) {
      for (const path of typeof target === 'string' ? [target] : [target.types, target.default])
        assert.ok(existsSync(join(PACKAGE, path)), `${path} exists`);
    }
    const server = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string> };
    for (const name of Object.keys(manifest.exports)) assert.ok(`.${name.slice(1)}` in server.exports || name in server.exports, name);
  });

  it('packs small: no screenshots, no source maps, no server', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE });
    const [pack] = JSON.parse(stdout) as { size: number; unpackedSize: number; files: { path: string }[] }[];
    assert.ok(pack!.size < 150_000, `the tarball is ${pack!.size} bytes`);
    assert.ok(!pack!.files.some((f) => /\.(png|map|ts)$/.test(f.path) && !f.path.endsWith('.d.ts')), 'code and declarations only');
    assert.ok(pack!.files.every((f) => relative(PACKAGE, join(PACKAGE, f.path)).split('/')[0] !== '..'));
    assert.equal(dirname(pack!.files.find((f) => f.path.endsWith('embed/index.js'))!.path), 'dist/embed');
  });
});
