import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, TEST_DATABASE_ENV, type EmbeddedServer } from './helpers/embedded-postgres.js';
import { createTemplateOn, TEST_TEMPLATE_ENV } from './helpers/postgres-template.js';

/**
 * `npm test` after the build: every test file once (the store conformance
 * suite covers both stores), and the whole HTTP suite again on PostgreSQL, the
 * two passes at the same time. PostgreSQL is DATABASE_URL when set, else one
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
 * Asynchronously: the embedded PostgreSQL logs into pipes this process reads, and
 * while a spawnSync blocked the event loop they filled up, the server's next log
 * line blocked it (the checkpointer first, so a DROP DATABASE waited forever) and
 * the run hung. With `heldUntil`, the output waits for that promise, so the two
 * passes' reports do not interleave.
 */
function runNodeTest(files: string[], env: NodeJS.ProcessEnv, heldUntil?: Promise<unknown>): Promise<number> {
  const args = ['--enable-source-maps', '--test', `--test-concurrency=${availableParallelism()}`, ...files];
  const child = spawn(process.execPath, args, { stdio: ['ignore', heldUntil ? 'pipe' : 'inherit', heldUntil ? 'pipe' : 'inherit'], env });
  if (heldUntil) {
    const held: [NodeJS.WriteStream, Buffer][] = [];
    let holding = true;
    for (const [from, to] of [
      [child.stdout!, process.stdout],
      [child.stderr!, process.stderr],
    ] as const) {
      from.on('data', (chunk: Buffer) => (holding ? held.push([to, chunk]) : to.write(chunk)));
    }
    void heldUntil.finally(() => {
      holding = false;
      for (const [to, chunk] of held.splice(0)) to.write(chunk);
    });
  }
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/**
 * The HTTP suite: every test of a route or a page, which runs on the store UGS_TEST_STORE names
 * (test/<concept>/http/, test/<concept>/pages/, and the platform's own in test/platform/http/).
 */
function isHttpSuite(file: string): boolean {
  return /[\\/](http|pages)[\\/]/.test(relative(root, file));
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
    console.log(
      `# all tests (HTTP suite on SQLite), and the HTTP suite on PostgreSQL at ${given ? 'DATABASE_URL' : 'an embedded server'} beside them`,
    );
    // Together, so that neither pass's last long files leave a core idle.
    const all = runNodeTest(testFiles(root), { ...env, UGS_TEST_STORE: 'sqlite' });
    const http = runNodeTest(
      testFiles(root).filter(isHttpSuite),
      { ...env, UGS_TEST_STORE: 'postgres' },
      all.then(() => console.log('# the HTTP suite on PostgreSQL')),
    );
    const codes = await Promise.all([all, http]);
    failed = codes.some((code) => code !== 0);
  } finally {
    await template.drop();
  }
} catch (error) {
  console.error(error);
} finally {
  await postgres.stop();
}
// Explicitly: embedded-postgres's exit hook would otherwise turn any exit code into 0.
process.exit(failed ? 1 : 0);
