import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const EMBED = resolve(ROOT, 'dist/src/embed');

/** Every module the compiled entry point loads, following relative imports. */
function importGraph(entry: string): { files: string[]; packages: Set<string> } {
  const files: string[] = [];
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.includes(file)) continue;
    files.push(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
      if (specifier!.startsWith('.')) pending.push(resolve(dirname(file), specifier!));
      else packages.add(specifier!);
    }
  }
  return { files, packages };
}

describe('user-group-service/embed', () => {
  it('loads only its own files, jose and node built-ins: no Fastify, store or config in a dashboard', () => {
    const { files, packages } = importGraph(resolve(EMBED, 'index.js'));
    for (const file of files) assert.ok(!relative(EMBED, file).startsWith('..'), `${relative(ROOT, file)} is outside src/embed`);
    for (const name of packages) assert.ok(name === 'jose' || name === 'pg' || name.startsWith('node:'), `imports ${name}`);
  });

  it('imports pg, the data router’s driver, only with import(): a dashboard that only verifies tokens never loads it', () => {
    const { files } = importGraph(resolve(EMBED, 'index.js'));
    const importers = files.filter((file) => /['"]pg['"]/.test(readFileSync(file, 'utf8')));
    assert.deepEqual(
      importers.map((file) => relative(EMBED, file)),
      ['data-router.js'],
    );
    for (const file of importers) assert.doesNotMatch(readFileSync(file, 'utf8'), /from\s*['"]pg['"]|require\(\s*['"]pg['"]/);
  });

  it('is importable by its package name in a fresh process, loading no server dependency', () => {
    const probe = `
      import { createRequire } from 'node:module';
      const embed = await import('user-group-service/embed');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ exports: Object.keys(embed).sort(), loaded }));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    const { exports, loaded } = JSON.parse(child.stdout) as { exports: string[]; loaded: string[] };
    assert.deepEqual(exports, [
      'DataRouterError',
      'EmbedBindingError',
      'EmbedTokenError',
      'bindProperties',
      'createCubeCheckAuth',
      'createDataRouter',
      'createEmbedVerifier',
      'postgresPolicySql',
      'tablePolicySql',
      'withSessionClaims',
    ]);
    assert.deepEqual(
      loaded.filter((path) => /fastify|better-sqlite3|[\\/]pg[\\/]|pino/.test(path)),
      [],
    );
  });
});
