// The build's steps around tsc (`npm run build`: `node scripts/build-outputs.mjs --before && tsc -p tsconfig.json &&
// node scripts/build-outputs.mjs`), written so that a build never takes away a file a running service reads: a
// service started from dist/ (npm start, an example) keeps answering while `npm test` or `npm run build` runs.
// The build used to delete dist/ and compile it all again; for 9-14 s the console's templates and the modules a
// starting service imports were missing (500s, ERR_MODULE_NOT_FOUND). Now tsc compiles incrementally (it rewrites
// only what changed), this script copies only the assets that changed, each replaced in one rename, and removes
// only outputs whose source is gone, so a compiled test whose source was deleted never runs.
// Plain JavaScript run by node, not compiled: it runs before the first compile, and on any Node.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The folders tsconfig.json compiles into dist/ (its "include"). */
const COMPILED = ['src', 'test', 'bench', 'scripts', 'examples'];
/** Served as they are, next to the compiled code that reads them. */
const ASSETS = ['src/console/views', 'src/console/assets', 'src/embed/browser'];
/** What tsc writes for a source `x.ts`. */
const COMPILED_SUFFIX = /(\.d\.ts|\.js)(\.map)?$/;
const BUILD_INFO = 'dist/.tsbuildinfo';

/** Every file below `dir`, relative to `root`; none when `dir` is not there. */
function filesUnder(root, dir) {
  const at = join(root, dir);
  if (!existsSync(at)) return [];
  return readdirSync(at, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** A file of dist/ is stale when neither the file it was copied from nor the TypeScript it was compiled from is there. */
function isStale(root, output) {
  const source = relative('dist', output);
  if (existsSync(join(root, source))) return false;
  return !(COMPILED_SUFFIX.test(source) && existsSync(join(root, source.replace(COMPILED_SUFFIX, '.ts'))));
}

/** Removes dist/'s stale files, then the folders left empty whose source folder is gone; answers how many files went. */
function removeStale(root) {
  let removed = 0;
  for (const top of COMPILED) {
    for (const output of filesUnder(root, join('dist', top))) {
      if (!isStale(root, output)) continue;
      rmSync(join(root, output));
      removed++;
    }
    const dirs = existsSync(join(root, 'dist', top))
      ? readdirSync(join(root, 'dist', top), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(entry.parentPath, entry.name))
      : [];
    // Deepest first, so a folder whose only content was an emptied folder goes too.
    for (const dir of dirs.sort((a, b) => b.length - a.length)) {
      if (readdirSync(dir).length === 0 && !existsSync(join(root, relative(join(root, 'dist'), dir)))) rmdirSync(dir);
    }
  }
  return removed;
}

/**
 * Copies each asset whose copy in dist/ differs or is missing, writing beside it and renaming over it: a reader sees
 * the old file or the new one, never a half-written one.
 */
function copyChangedAssets(root) {
  for (const dir of ASSETS) {
    for (const source of filesUnder(root, dir)) {
      const target = join(root, 'dist', source);
      const content = readFileSync(join(root, source));
      if (existsSync(target) && content.equals(readFileSync(target))) continue;
      const scratch = `${target}.${process.pid}.tmp`;
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(scratch, content);
      renameSync(scratch, target);
    }
  }
  const cli = join(root, 'dist/src/cli/main.js');
  if (existsSync(cli) && (statSync(cli).mode & 0o777) !== 0o755) chmodSync(cli, 0o755);
}

/**
 * Before tsc: an incremental compile trusts its build info to know what is already in dist/. If a compiled file
 * is missing (dist/ partly removed by hand), the build info goes, so tsc writes everything again instead of
 * leaving that file out.
 */
function forgetBuildInfoIfOutputsMissing(root) {
  if (!existsSync(join(root, BUILD_INFO))) return;
  const missing = COMPILED.flatMap((top) => filesUnder(root, top)).find(
    (source) => source.endsWith('.ts') && !source.endsWith('.d.ts') && !existsSync(join(root, 'dist', source.replace(/\.ts$/, '.js'))),
  );
  if (missing !== undefined) rmSync(join(root, BUILD_INFO));
}

const root = process.cwd();
if (process.argv.includes('--before')) {
  forgetBuildInfoIfOutputsMissing(root);
} else {
  copyChangedAssets(root);
  const removed = removeStale(root);
  if (removed > 0) process.stdout.write(`Removed ${removed} compiled file${removed === 1 ? '' : 's'} of dist/ whose source is gone.\n`);
}
