import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEmbeddedPostgres, TEST_DATABASE_ENV, type EmbeddedServer } from './helpers/embedded-postgres.js';
import { createTemplateOn, TEST_TEMPLATE_ENV } from './helpers/postgres-template.js';
import { ISOLATION_NONE, reportsFailure } from './helpers/test-report.js';

/**
 * `npm test` after the build: every test file once (the store conformance
 * suite covers both stores), and the whole HTTP suite again on PostgreSQL, in
 * the same `node --test` run. PostgreSQL is DATABASE_URL when set, else one
 * embedded server for the run; either way with one migrated template database
 * that test databases are copied from.
 */
const root = dirname(fileURLToPath(import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => join(dir, f))
    .sort();
}

/**
 * Test files run at once: one more than the cores, since many files spend much of their time waiting
 * (on a server they started, on a retry's timer, on PostgreSQL), and a waiting file leaves its core idle.
 */
const TEST_CONCURRENCY = availableParallelism() + 1;

/**
 * Asynchronously: the embedded PostgreSQL logs into pipes this process reads, and
 * while a spawnSync blocked the event loop they filled up, the server's next log
 * line blocked it (the checkpointer first, so a DROP DATABASE waited forever) and
 * the run hung.
 */
function runNodeTest(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = ['--enable-source-maps', '--test', `--test-concurrency=${TEST_CONCURRENCY}`, ...files];
  const child = spawn(process.execPath, args, { stdio: 'inherit', env });
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/**
 * A share of the files run in one process, one after another (`--test-isolation=none`): a test file's own
 * process spends about a CPU-second starting Node and loading the service's modules before its first test,
 * which over ~200 files was a third of the suite. Its output is held and printed when it ends, so shares
 * running side by side do not interleave.
 */
function runShared(
  label: string,
  files: string[],
  env: NodeJS.ProcessEnv,
  isolation: string = ISOLATION_NONE,
): Promise<{ label: string; code: number; output: string }> {
  const args = ['--enable-source-maps', '--test', isolation, '--test-reporter=spec', ...files];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ label, code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ label, code: code === 0 && !reportsFailure(output) ? 0 : code || 1, output }));
  });
}

/** `count` shares of about equal length: the files dealt out in turn, longest first. */
function dealt(files: string[], count: number): string[][] {
  const shares: string[][] = Array.from({ length: count }, () => []);
  longestFirst(files).forEach((file, i) => shares[i % count]!.push(file));
  return shares.filter((share) => share.length > 0);
}

/**
 * The PostgreSQL pass of an HTTP suite file: a file beside the build (dist/postgres-pass/…) that sets
 * UGS_TEST_STORE before it loads the test, so both passes run in one `node --test` and share its
 * concurrency (two runs side by side put twice as many processes on the cores, and pinned starts timed out).
 */
function onPostgres(file: string): string {
  const pass = join(root, '..', 'postgres-pass', relative(root, file));
  mkdirSync(dirname(pass), { recursive: true });
  writeFileSync(pass, `process.env.UGS_TEST_STORE = 'postgres';\nawait import(${JSON.stringify(pathToFileURL(file).href)});\n`);
  return pass;
}

/**
 * The HTTP suite: every test of a route or a page, which runs on the store UGS_TEST_STORE names
 * (test/<concept>/http/, test/<concept>/pages/, and the platform's own in test/platform/http/).
 */
function isHttpSuite(file: string): boolean {
  return /[\\/](http|pages)[\\/]/.test(relative(root, file));
}

/**
 * Where a file runs is read from its name: `<name>.<tag>….test.ts`, each tag one of these (README, Tests).
 * - `slow`: `npm run test:slow` runs it, `npm test` does not: whole processes, browsers and load over minutes of
 *   wall clock (crashes and signals, the soak and GC runs, the package installed from a tarball, the README pasted
 *   into shells, the 3-minute renewal in chromium, the benchmark's smoke run). `.ci/run` runs both.
 * - `http-layer`: an HTTP suite file about the HTTP layer itself (parsing, limits, headers, the OpenAPI document,
 *   CSP, static scripts, token forgery): what it checks happens before or around a store call and reads the same
 *   on both stores, so it runs on SQLite only. Every other HTTP suite file reads or writes through a store and runs
 *   on both.
 * - `browser`: drives chromium; it keeps its own process (as cli/ and examples/ files do) and starts first.
 * - `long`: one of the longest runs (a minute or more of wall clock); it starts right after the browser files.
 */
const TAGS = ['slow', 'http-layer', 'browser', 'long'] as const;
type Tag = (typeof TAGS)[number];

function tagsOf(file: string): Set<string> {
  return new Set(relative(root, file).replaceAll('\\', '/').split('/').at(-1)!.split('.').slice(1, -2));
}
const tagged = (tag: Tag) => (file: string) => tagsOf(file).has(tag);

/**
 * A misspelled tag would silently run a file in the wrong place (`x.slwo.test.ts` in `npm test`, an
 * `http-layer` file outside the HTTP suite, which the tag cannot take off PostgreSQL): the run stops instead.
 */
function assertTagged(files: string[]): void {
  const wrong = files.flatMap((file) => {
    const path = relative(root, file).replaceAll('\\', '/');
    const unknown = [...tagsOf(file)].filter((tag) => !(TAGS as readonly string[]).includes(tag));
    if (unknown.length > 0) return [`${path} (unknown ${unknown.join(', ')}; tags are ${TAGS.join(', ')})`];
    if (tagged('http-layer')(file) && !isHttpSuite(file)) return [`${path} (http-layer outside test/**/http/ and test/**/pages/)`];
    return [];
  });
  if (wrong.length > 0) throw new Error(`test file names whose tags test/run-tests.ts refuses: ${wrong.join('; ')}`);
}

/**
 * Files that take longest start first, so that they do not begin last and leave the other cores idle at the end
 * (the runner starts files in the order given): chromium's (the 3-minute renewal among them), then the `long` ones.
 */
function longestFirst(files: string[]): string[] {
  const rank = (file: string) => (tagged('browser')(file) ? 0 : tagged('long')(file) ? 1 : 2);
  return [...files].sort((a, b) => rank(a) - rank(b));
}

/** Shares of the in-process files run side by side, one per core. */
const SHARES_ON_SQLITE = availableParallelism();

/**
 * Files that start `ugs` processes, shells or chromium and wait on them: in a share they would wait one after
 * another, so they keep a process each, three at a time, beside the shares (their own start-up is small beside
 * the processes they start).
 */
const OWN_PROCESSES_AT_ONCE = 3;
function ownProcess(file: string): boolean {
  const path = relative(root, file).replaceAll('\\', '/');
  return /^(cli|examples)\//.test(path) || tagged('browser')(file);
}
const SHARES_ON_POSTGRES = 1;

function printShare(result: { label: string; code: number; output: string }): void {
  console.log(`# ---- ${result.label}: exit ${result.code}`);
  process.stdout.write(result.output);
}

const given = process.env.DATABASE_URL;
const postgres: Pick<EmbeddedServer, 'url' | 'stop'> = given
  ? { url: given, stop: async () => {} }
  : await startEmbeddedPostgres({ durable: false });
let failed = true;
try {
  // Says which Node runs the suite: npm scripts prefer the `node` dev dependency to the one on PATH (.ci/run).
  console.log(`# Node.js ${process.version} runs the tests`);
  const template = await createTemplateOn(postgres.url);
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, [TEST_DATABASE_ENV]: postgres.url, [TEST_TEMPLATE_ENV]: template.name };
    // Tests choose their store explicitly; a developer's DATABASE_URL must not leak into spawned servers.
    delete env.DATABASE_URL;
    console.log(`# the HTTP suite on SQLite, and on PostgreSQL at ${given ? 'DATABASE_URL' : 'an embedded server'}`);
    assertTagged(testFiles(root));
    const slow = process.argv.includes('--slow');
    const files = testFiles(root).filter((file) => tagged('slow')(file) === slow);
    const onBoth = files.filter((file) => isHttpSuite(file) && !tagged('http-layer')(file));
    console.log(
      `# ${slow ? 'the slow tests (npm run test:slow)' : 'npm test'}: ${files.length} files, and ${onBoth.length} again on PostgreSQL`,
    );
    if (slow) {
      failed = (await runNodeTest(longestFirst([...files, ...onBoth.map(onPostgres)]), { ...env, UGS_TEST_STORE: 'sqlite' })) !== 0;
    } else {
      const own = files.filter(ownProcess);
      const shares = [
        runShared(
          `the files that start processes and browsers, ${OWN_PROCESSES_AT_ONCE} at once`,
          longestFirst(own),
          { ...env, UGS_TEST_STORE: 'sqlite' },
          `--test-concurrency=${OWN_PROCESSES_AT_ONCE}`,
        ),
        ...dealt(
          files.filter((file) => !ownProcess(file)),
          SHARES_ON_SQLITE,
        ).map((share, i) => runShared(`share ${i + 1} (HTTP suite on SQLite)`, share, { ...env, UGS_TEST_STORE: 'sqlite' })),
        ...dealt(onBoth, SHARES_ON_POSTGRES).map((share, i) =>
          runShared(`share ${i + 1} on PostgreSQL (the HTTP suite again)`, share, { ...env, UGS_TEST_STORE: 'postgres' }),
        ),
      ];
      const results = await Promise.all(shares.map((share) => share.then((result) => (printShare(result), result))));
      failed = results.some((result) => result.code !== 0);
      for (const result of results) console.log(`# ${result.label}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`}`);
    }
  } finally {
    await template.drop();
  }
} catch (error) {
  console.error(error);
} finally {
  await postgres.stop();
}
// Into a pipe (CI), stdout is written asynchronously and process.exit drops what is still queued (a run's held
// output was cut off): an empty write's callback comes once everything before it is out.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
// Explicitly: embedded-postgres's exit hook would otherwise turn any exit code into 0.
process.exit(failed ? 1 : 0);
