import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres, TEST_DATABASE_ENV, type EmbeddedServer } from './helpers/embedded-postgres.js';

/**
 * `npm test` after the build: every test file once (the store conformance
 * suite covers both stores), then the whole HTTP suite again on PostgreSQL.
 * PostgreSQL is DATABASE_URL when set, else one embedded server for the run.
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
 * the run hung.
 */
function runNodeTest(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, ['--enable-source-maps', '--test', `--test-concurrency=${availableParallelism()}`, ...files], { stdio: 'inherit', env });
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const given = process.env.DATABASE_URL;
const postgres: Pick<EmbeddedServer, 'url' | 'stop'> = given ? { url: given, stop: async () => {} } : await startEmbeddedPostgres();
const env: NodeJS.ProcessEnv = { ...process.env, [TEST_DATABASE_ENV]: postgres.url };
// Tests choose their store explicitly; a developer's DATABASE_URL must not leak into spawned servers.
delete env.DATABASE_URL;

let failed = false;
try {
  // Says which Node runs the suite: npm scripts prefer the `node` dev dependency to the one on PATH (.ci/run).
  console.log(`# Node.js ${process.version} runs the tests`);
  console.log(`# all tests (HTTP suite on SQLite), PostgreSQL at ${given ? 'DATABASE_URL' : 'an embedded server'}`);
  failed = (await runNodeTest(testFiles(root), { ...env, UGS_TEST_STORE: 'sqlite' })) !== 0;
  console.log('# the HTTP suite again, on PostgreSQL');
  failed = (await runNodeTest(testFiles(join(root, 'http')), { ...env, UGS_TEST_STORE: 'postgres' })) !== 0 || failed;
} finally {
  await postgres.stop();
}
// Explicitly: embedded-postgres's exit hook would otherwise turn any exit code into 0.
process.exit(failed ? 1 : 0);
