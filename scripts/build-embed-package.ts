import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Builds packages/embed (user-group-service-embed): the typed client and the embed kit (verifier, binder, policy
 * helpers, data router, Cube helper, browser scripts) as a dashboard project installs them, without the server.
 * It copies from the build (dist/src) exactly the files the entry points reach, following their imports, so
 * whatever src/client/index.ts and src/embed/index.ts export is in it and nothing else.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUILT = join(ROOT, 'dist/src');
const PACKAGE = join(ROOT, 'packages/embed');
const OUT = join(PACKAGE, 'dist');

/** The entry points, relative to dist/src: their .js and .d.ts closures are the package. */
export const ENTRIES = ['client/index', 'embed/index'];

// `from '…'`, `import '…'`, `import('…')` and `export … from '…'` in compiled JS and in declarations.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([@.\w][^'"\s,]*)['"]/g;

/** The specifiers a file imports. */
export function importsOf(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((match) => match[1]!);
}

/** Every file reachable from `entries` (paths relative to `root`), following relative imports; bare ones collected apart. */
export function closure(root: string, entries: string[]): { files: string[]; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importsOf(readFileSync(join(root, file), 'utf8'))) {
      if (!specifier.startsWith('.')) {
        bare.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
        continue;
      }
      const target = relative(root, join(dirname(join(root, file)), specifier));
      // A declaration names the module's .js; its types are in the .d.ts beside it.
      queue.push(file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target);
    }
  }
  return { files: [...files].sort(), bare };
}

function build(): void {
  if (!existsSync(join(BUILT, 'embed/index.js'))) throw new Error('dist/src is not built: run `npm run build` first');
  rmSync(OUT, { recursive: true, force: true });
  const js = closure(
    BUILT,
    ENTRIES.map((entry) => `${entry}.js`),
  );
  const types = closure(
    BUILT,
    ENTRIES.map((entry) => `${entry}.d.ts`),
  );
  const browser = readdirSync(join(BUILT, 'embed/browser')).map((name) => `embed/browser/${name}`);
  for (const file of [...js.files, ...types.files, ...browser]) {
    mkdirSync(dirname(join(OUT, file)), { recursive: true });
    copyFileSync(join(BUILT, file), join(OUT, file));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build();
