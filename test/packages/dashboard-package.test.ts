import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { buildDashboardPackage } from '../../scripts/build-packages.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const requireFromRoot = createRequire(join(ROOT, 'package.json'));

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  engines?: unknown;
  license?: string;
  scripts?: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/** One import of one file of the package: who imports, what it names, as written. */
interface PackageImport {
  file: string;
  specifier: string;
}

/** Every import of every .js and .d.ts file under `dir` (static, re-export, `import()`, `import type`, `/// <reference types>`). */
function importsUnder(dir: string): PackageImport[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.js') || file.endsWith('.d.ts'))
    .flatMap((file) => {
      const { importedFiles, typeReferenceDirectives } = ts.preProcessFile(readFileSync(join(dir, file), 'utf8'), true, true);
      return [...importedFiles.map((f) => f.fileName), ...typeReferenceDirectives.map((r) => `@types/${r.fileName}`)].map((specifier) => ({
        file,
        specifier,
      }));
    });
}

/** The package a bare specifier names: `pg`, `@scope/name` (for `pg/lib/x`, `@scope/name/x`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Whether the installed package ships its own declarations (jose does; pg's are @types/pg). */
function hasOwnTypes(name: string): boolean {
  const manifest = JSON.parse(readFileSync(requireFromRoot.resolve(`${name}/package.json`), 'utf8')) as Record<string, unknown>;
  return 'types' in manifest || 'typings' in manifest || JSON.stringify(manifest.exports ?? {}).includes('"types"');
}

/**
 * packages/dashboard, as `npm run build:packages` makes it (built here into a temp folder from this build's
 * dist/src): what a dashboard project installs instead of the server. Whatever src/client/index.ts and
 * src/embed/index.ts export is in it; nothing it loads, at run time or for its types, is outside it but jose, pg
 * and Node's own modules.
 */
describe('packages/dashboard', () => {
  const scratch = makeTempDir('ugs-dashboard-package');
  const dir = join(scratch.path, 'user-group-service-dashboard');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', 'dashboard', 'package.json'), 'utf8')) as Manifest;
  let written: string[] = [];
  before(() => {
    written = buildDashboardPackage(dir);
    // The package's own dependencies, as an installation would put them beside it.
    symlinkSync(join(ROOT, 'node_modules'), join(scratch.path, 'node_modules'));
  });
  after(() => scratch.remove());

  it('imports only jose, pg and node:*, and every relative import resolves to a file of the package', () => {
    const imports = importsUnder(join(dir, 'dist'));
    assert.ok(imports.length > 50, `only ${imports.length} imports found: the walk is broken`);
    const bare = imports.filter(({ specifier }) => !specifier.startsWith('.'));
    assert.deepEqual(
      bare.filter(({ specifier }) => !(specifier === 'jose' || specifier === 'pg' || specifier.startsWith('node:'))),
      [],
      'a file of the package imports a module other than jose, pg and node:*',
    );
    const dangling = imports
      .filter(({ specifier }) => specifier.startsWith('.'))
      .map(({ file, specifier }) => {
        const target = posix.join(posix.dirname(file), specifier);
        return { file, specifier, target: file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target };
      })
      .filter(({ target }) => target.startsWith('..') || !existsSync(join(dir, 'dist', target)));
    assert.deepEqual(dangling, [], 'a relative import leads out of the package or to a file it lacks');
  });

  it("declares exactly what it imports: jose and pg as dependencies, pg's types as an optional peer", () => {
    const imports = importsUnder(join(dir, 'dist'));
    const imported = (extension: string) =>
      new Set(
        imports
          .filter(({ file, specifier }) => file.endsWith(extension) && !specifier.startsWith('.') && !specifier.startsWith('node:'))
          .map(({ specifier }) => packageOf(specifier)),
      );
    assert.deepEqual(
      Object.keys(manifest.dependencies ?? {}).sort(),
      [...imported('.js')].sort(),
      'dependencies are not what the code imports',
    );
    const typesOnly = [...imported('.d.ts')].filter((name) => !hasOwnTypes(name)).map((name) => `@types/${name}`);
    assert.deepEqual(Object.keys(manifest.peerDependencies ?? {}).sort(), typesOnly.sort());
    for (const name of typesOnly) assert.equal(manifest.peerDependenciesMeta?.[name]?.optional, true, `${name} is not an optional peer`);
    // The ranges the server is built and tested with.
    const tested = { ...rootManifest.devDependencies, ...rootManifest.dependencies };
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }))
      assert.equal(range, tested[name], `${name}: ${range} here, ${tested[name]} in package.json`);
  });

  it("is the server's version, engines and license, with no script at all (nothing for an install to run or warn about)", () => {
    assert.equal(manifest.version, rootManifest.version);
    assert.deepEqual(manifest.engines, rootManifest.engines);
    assert.equal(manifest.license, rootManifest.license);
    assert.equal(manifest.scripts, undefined);
    assert.equal(manifest.private, true, 'not meant for the public registry');
  });

  it("offers the server's client and embed entry points (./client, ./embed and the two browser scripts), each with its types", () => {
    const serverEntries = Object.keys(rootManifest.exports).filter((entry) => entry !== '.');
    assert.deepEqual(Object.keys(manifest.exports), serverEntries);
    for (const [entry, target] of Object.entries(manifest.exports)) {
      const files = typeof target === 'string' ? [target] : Object.values(target);
      for (const file of files) assert.ok(written.includes(file.replace(/^\.\//, '')), `${entry}: ${file} was not built`);
      if (typeof target !== 'string')
        assert.deepEqual(Object.keys(target), ['types', 'default'], `${entry}: types first, as resolution reads them`);
    }
  });

  it('exports every name src/client/index.ts and src/embed/index.ts export, whatever they are at build time', async () => {
    for (const entry of ['client', 'embed']) {
      const built = (await import(pathToFileURL(join(ROOT, 'dist', 'src', entry, 'index.js')).href)) as object;
      const packaged = (await import(pathToFileURL(join(dir, 'dist', entry, 'index.js')).href)) as object;
      assert.deepEqual(Object.keys(packaged).sort(), Object.keys(built).sort(), entry);
      assert.equal(
        readFileSync(join(dir, 'dist', entry, 'index.d.ts'), 'utf8'),
        readFileSync(join(ROOT, 'dist', 'src', entry, 'index.d.ts'), 'utf8'),
        `${entry}: declarations`,
      );
    }
  });

  it('carries no source maps or sources (their paths lead into the checkout), nothing outside dist/ but its manifest, README and LICENSE', () => {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => file.split('\\').join('/'));
    assert.deepEqual(
      files.filter((file) => !file.startsWith('dist/') && file !== 'dist'),
      ['LICENSE', 'README.md', 'package.json'].filter((file) => files.includes(file)),
    );
    assert.deepEqual(
      files.filter((file) => /\.(map|ts)$/.test(file) && !file.endsWith('.d.ts')),
      [],
    );
    for (const file of written.filter((file) => file.endsWith('.js')))
      assert.doesNotMatch(readFileSync(join(dir, file), 'utf8'), /sourceMappingURL/, file);
  });
});
