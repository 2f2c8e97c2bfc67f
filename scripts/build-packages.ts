import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the compiled server lives: the package's files are copied from here, never compiled again. */
const BUILT_SRC = join(ROOT, 'dist', 'src');
/** The package a dashboard project installs: its package.json and README are checked in, its dist/ and LICENSE are built here. */
export const DASHBOARD_PACKAGE = join(ROOT, 'packages', 'dashboard');

/** Every module specifier a file names: static imports and re-exports, `import()` with a literal, `import type`. */
export function specifiersOf(text: string): string[] {
  const { importedFiles, typeReferenceDirectives } = ts.preProcessFile(text, true, true);
  return [...importedFiles.map((f) => f.fileName), ...typeReferenceDirectives.map((r) => `@types/${r.fileName}`)];
}

/**
 * The files under dist/src (as paths relative to it, with '/') that `entries` load: from each .js file the .js files
 * its relative specifiers name, from each .d.ts file the .d.ts files. Apart, so that a type-only import of a server
 * file never ships that file's code, nor what its code imports.
 */
function closure(entries: readonly string[], extension: '.js' | '.d.ts'): string[] {
  const found = new Set<string>();
  const pending = entries.map((entry) => entry.replace(/\.js$/, extension));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (found.has(file)) continue;
    if (!existsSync(join(BUILT_SRC, file))) {
      if (extension === '.d.ts' && !file.startsWith('embed/browser/')) throw new Error(`dist/src/${file} is missing: build first`);
      if (extension === '.js') throw new Error(`dist/src/${file} is missing: build first (npm run build)`);
      continue;
    }
    found.add(file);
    for (const specifier of specifiersOf(readFileSync(join(BUILT_SRC, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      pending.push(posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, extension));
    }
  }
  return [...found].sort();
}

/** The package's entry files under dist/src: the targets of its package.json `exports` (./dist/<path> → <path>). */
function entriesOf(manifest: { exports: Record<string, string | Record<string, string>> }): string[] {
  const targets = Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
  return [...new Set(targets.filter((target) => target.endsWith('.js')).map((target) => target.replace(/^\.\/dist\//, '')))];
}

/**
 * Writes the dashboard package's dist/ into `out` (default: packages/dashboard, beside its package.json): the
 * compiled .js and .d.ts files its exports reach in dist/src, at the same paths, their source-map comments dropped
 * (the maps and the TypeScript they point to stay in the checkout). Returns the files written, relative to `out`.
 */
export function buildDashboardPackage(out: string = DASHBOARD_PACKAGE): string[] {
  const manifest = JSON.parse(readFileSync(join(DASHBOARD_PACKAGE, 'package.json'), 'utf8')) as Parameters<typeof entriesOf>[0];
  const entries = entriesOf(manifest);
  const files = [...new Set([...closure(entries, '.js'), ...closure(entries, '.d.ts')])].sort();
  rmSync(join(out, 'dist'), { recursive: true, force: true });
  for (const file of files) {
    const target = join(out, 'dist', file);
    mkdirSync(dirname(target), { recursive: true });
    if (file.endsWith('.js') && !file.startsWith('embed/browser/'))
      writeFileSync(target, readFileSync(join(BUILT_SRC, file), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'));
    else cpSync(join(BUILT_SRC, file), target);
  }
  if (out !== DASHBOARD_PACKAGE) for (const file of ['package.json', 'README.md']) cpSync(join(DASHBOARD_PACKAGE, file), join(out, file));
  // The repository's license, one copy checked in: npm packs a package's LICENSE with it.
  cpSync(join(ROOT, 'LICENSE'), join(out, 'LICENSE'));
  return files.map((file) => `dist/${file}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const files = buildDashboardPackage();
  const bytes = files.reduce((sum, file) => sum + statSync(join(DASHBOARD_PACKAGE, file)).size, 0);
  console.error(
    `packages/dashboard: ${files.length} files, ${(bytes / 1024).toFixed(0)} kB; \`npm pack packages/dashboard\` makes its tarball`,
  );
}
