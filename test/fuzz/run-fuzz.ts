import { Command, InvalidArgumentError, Option } from 'commander';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { lastLine, runCli, spawnServer, type ServerProcess } from '../helpers/cli.js';
import { createDatabaseOn, startEmbeddedPostgres, type EmbeddedServer } from '../helpers/embedded-postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  describeOutcome,
  describeRequest,
  KNOWN_BUGS,
  requestArbitrary,
  sendFuzzRequest,
  type FuzzContext,
  type FuzzRequest,
} from './http-arbitraries.js';
import {
  errorLogLines,
  outcomeViolations,
  pollutionProbeViolations,
  serverIsUp,
  snapshotViolations,
  takeSnapshot,
  validKeyServedViolations,
} from './invariants.js';

/**
 * `npm run fuzz -- --minutes N [--stores sqlite,postgres]`: the generators of
 * the property test, for as long as asked, against `ugs serve` running as a
 * child process on each store in turn (the time is split between them). Prints
 * one summary line per store and an example of each kind of violation (up
 * to 5 kinds); exits 1 if any.
 *
 * PostgreSQL is a fresh database on DATABASE_URL when set, else on an embedded
 * server started for the run.
 */

type Store = 'sqlite' | 'postgres';

interface Options {
  minutes: number;
  stores: Store[];
  concurrency: number;
  seed: number;
  includeKnownBugs: boolean;
}

interface Violation {
  kind: string;
  count: number;
  request: string;
  outcome: string;
  broken: string[];
}

interface StoreResult {
  store: Store;
  requests: number;
  connectionErrors: Map<string, number>;
  statuses: Map<number, number>;
  violations: Violation[];
  violationCount: number;
}

const SHOWN_VIOLATIONS = 5;

function parseMinutes(value: string): number {
  const minutes = Number(value);
  if (!Number.isFinite(minutes) || minutes <= 0) throw new InvalidArgumentError('a positive number of minutes, e.g. 0.5');
  return minutes;
}

function parseStores(value: string): Store[] {
  const stores = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const store of stores)
    if (store !== 'sqlite' && store !== 'postgres') throw new InvalidArgumentError(`unknown store "${store}"; use sqlite and/or postgres`);
  if (stores.length === 0) throw new InvalidArgumentError('at least one store');
  return [...new Set(stores)] as Store[];
}

function parseSeed(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('an integer');
  return n;
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new InvalidArgumentError('an integer from 1 to 256');
  return n;
}

/** A PostgreSQL database for one run, and how to get rid of it. */
async function createFuzzDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const given = process.env.DATABASE_URL;
  const embedded: EmbeddedServer | undefined = given ? undefined : await startEmbeddedPostgres();
  const database = await createDatabaseOn(given ?? embedded!.url, 'ugs_fuzz');
  return { url: database.url, drop: () => (embedded ? embedded.stop() : database.drop()) };
}

async function createKey(env: Record<string, string>, args: string[]): Promise<{ key: string; id: string }> {
  const result = await runCli(['keys', 'create', ...args], env);
  if (result.code !== 0) throw new Error(`ugs keys create ${args.join(' ')} failed:\n${result.stderr}`);
  const id = /\b(key_[0-9a-f]+)\b/.exec(result.stdout)?.[1];
  if (!id) throw new Error(`no key id in:\n${result.stdout}`);
  return { key: lastLine(result.stdout), id };
}

async function fuzzStore(store: Store, milliseconds: number, options: Options): Promise<StoreResult> {
  const dataDir = makeTempDir('ugs-fuzz');
  const database = store === 'postgres' ? await createFuzzDatabase() : undefined;
  // An empty DATABASE_URL means "unset", so a developer's DATABASE_URL cannot turn the SQLite run into a PostgreSQL one.
  const env: Record<string, string> = {
    UGS_DATA_DIR: dataDir.path,
    UGS_SECRET: randomBytes(32).toString('hex'),
    DATABASE_URL: database?.url ?? '',
    // The failed-auth throttle stays at its default: past the first hundred bad keys from 127.0.0.1
    // it answers further failures 429, and requests with a valid key still reach everything.
    UGS_RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
    // info, because spawnServer waits for the "listening" line; see keepErrorLines for the rest.
    LOG_LEVEL: 'info',
  };
  let server: ServerProcess | undefined;
  const result: StoreResult = { store, requests: 0, connectionErrors: new Map(), statuses: new Map(), violations: [], violationCount: 0 };
  const record = (request: string, outcome: string, broken: string[]) => {
    result.violationCount++;
    // The first example of each kind (the broken invariants, numbers aside), so one frequent bug does not hide the others.
    const kind = broken.join('; ').replace(/\d+/g, 'N').slice(0, 120);
    const seen = result.violations.find((v) => v.kind === kind);
    if (seen) seen.count++;
    else if (result.violations.length < SHOWN_VIOLATIONS) result.violations.push({ kind, count: 1, request, outcome, broken });
  };
  try {
    server = await spawnServer(env);
    const errorLines = keepErrorLines(server);
    const url = server.url;
    const fuzzKey = await createKey(env, ['--environment', 'Customer', '--name', 'fuzz']);
    const readOnly = await createKey(env, ['--environment', 'Customer', '--read-only', '--name', 'fuzz read-only']);
    const revoked = await createKey(env, ['--environment', 'Customer', '--name', 'fuzz revoked']);
    const revoke = await runCli(['keys', 'revoke', revoked.id], env);
    if (revoke.code !== 0) throw new Error(`ugs keys revoke failed:\n${revoke.stderr}`);
    // The snapshot's own keys; the fuzz traffic never gets them (see takeSnapshot).
    const snapshotTesting = await createKey(env, ['--environment', 'Testing', '--name', 'snapshot']);
    const snapshotCustomer = await createKey(env, ['--environment', 'Customer', '--name', 'snapshot']);
    const snapshot = await takeSnapshot(url, { testing: snapshotTesting.key, customer: snapshotCustomer.key });

    const tokens: string[] = [];
    for (const id of ['fuzz-1', 'fuzz-2', 'fuzz-3']) {
      const res = await sendFuzzRequest(url, {
        method: 'GET',
        path: '/api/user',
        headers: { authorization: `Token ${fuzzKey.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ user_group_id: id, name: id }),
      });
      if (res.response?.status !== 200) throw new Error(`creating ${id}: ${describeOutcome(res)}`);
      tokens.push((res.response.json as { user_group: { token: string } }).user_group.token);
    }
    const ctx: FuzzContext = { apiKeys: [fuzzKey.key, readOnly.key, revoked.key], tokens: [...tokens, ...snapshot.testingTokens] };
    const arbitrary = requestArbitrary(ctx, { includeKnownBugs: options.includeKnownBugs });

    // Requests come in seeded batches, so a run can be replayed with --seed.
    let batch: FuzzRequest[] = [];
    let batchNumber = 0;
    const next = (): FuzzRequest => {
      if (batch.length === 0) batch = fc.sample(arbitrary, { numRuns: 64, seed: options.seed + batchNumber++ });
      return batch.pop()!;
    };

    const deadline = Date.now() + milliseconds;
    let serverDown = false;
    const worker = async () => {
      while (Date.now() < deadline && !serverDown) {
        const req = next();
        const outcome = await sendFuzzRequest(url, req);
        result.requests++;
        if (outcome.response) result.statuses.set(outcome.response.status, (result.statuses.get(outcome.response.status) ?? 0) + 1);
        if (outcome.connectionError) {
          const key = `${req.method.toUpperCase() === 'HEAD' ? 'HEAD ' : ''}${outcome.connectionError.code}`;
          result.connectionErrors.set(key, (result.connectionErrors.get(key) ?? 0) + 1);
        }
        const broken = await outcomeViolations(url, req, outcome);
        if (broken.length > 0) record(describeRequest(req), describeOutcome(outcome), broken);
        if (server!.child.exitCode !== null || broken.some((b) => b.startsWith('server down'))) serverDown = true;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));

    // After the run: still up and ready, nothing changed that should not have, nothing planted, nothing logged as an error.
    const after: string[] = [];
    if (server.child.exitCode !== null) after.push(`the server exited with code ${server.child.exitCode}`);
    else if (!(await serverIsUp(url))) after.push('/healthz does not answer 200');
    else {
      const ready = await sendFuzzRequest(url, { method: 'GET', path: '/readyz', headers: {}, body: undefined });
      if (ready.response?.status !== 200) after.push(`/readyz: ${describeOutcome(ready)}`);
      after.push(...(await snapshotViolations(url, snapshot)));
      after.push(...(await pollutionProbeViolations(url, fuzzKey.key)));
      after.push(...(await validKeyServedViolations(url, fuzzKey.key)));
    }
    for (const line of [...errorLogLines(server.output()), ...errorLines]) after.push(`the server logged an error: ${line.slice(0, 500)}`);
    for (const broken of after) record('(after the run)', '', [broken]);
  } finally {
    if (server && server.child.exitCode === null) {
      const code = await server.stop();
      if (code !== 0) record('(shutdown)', '', [`the server exited with code ${code} on SIGTERM`]);
    }
    await database?.drop();
    dataDir.remove();
  }
  return result;
}

/**
 * From now on keeps only the server's error log lines and its stderr: at info it logs every
 * request, and a long run would otherwise hold all of them in memory.
 */
function keepErrorLines(server: ServerProcess): string[] {
  const kept: string[] = [];
  for (const [stream, isStderr] of [
    [server.child.stdout!, false],
    [server.child.stderr!, true],
  ] as const) {
    stream.removeAllListeners('data');
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      // pino writes to stdout; anything on stderr (a crash, a warning) is worth a look.
      if (kept.length < 100) kept.push(...(isStderr ? lines.filter((l) => l.trim() !== '') : errorLogLines(lines.join('\n'))));
    });
  }
  return kept;
}

function report(result: StoreResult, seed: number): void {
  console.log(`fuzz ${result.store}: ${result.requests} requests, ${result.violationCount} invariant violations`);
  const statuses = [...result.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  const closed = [...result.connectionErrors].map(([code, n]) => `${code}: ${n}`).join(', ');
  console.log(
    `  statuses ${statuses || 'none'}; connections closed without a whole answer, server still up: ${closed || 'none'}; seed ${seed}`,
  );
  for (const [i, v] of result.violations.entries()) {
    console.log(`  violation ${i + 1} (${v.count}× of this kind): ${v.broken.join('; ')}`);
    console.log(`    request:  ${v.request}`);
    if (v.outcome) console.log(`    response: ${v.outcome}`);
  }
  const shown = result.violations.reduce((n, v) => n + v.count, 0);
  if (result.violationCount > shown) console.log(`  … and ${result.violationCount - shown} more of other kinds`);
}

async function main(): Promise<number> {
  const program = new Command()
    .name('run-fuzz')
    .description('send generated hostile requests to a live server on each store and check the invariants')
    .requiredOption('--minutes <n>', 'total time to fuzz, split between the stores (fractions allowed)', parseMinutes)
    .addOption(
      new Option('--stores <list>', 'comma-separated stores').default(['sqlite', 'postgres'], 'sqlite,postgres').argParser(parseStores),
    )
    .addOption(new Option('--concurrency <n>', 'requests in flight').default(8).argParser(parsePositiveInt))
    .addOption(new Option('--seed <n>', 'seed of the generators (printed with the results)').argParser(parseSeed))
    .option('--include-known-bugs', 'also send the exact triggers of the bugs listed in KNOWN_BUGS (test/fuzz/http-arbitraries.ts)', false)
    .parse();
  const raw = program.opts<{ minutes: number; stores: Store[]; concurrency: number; seed?: number; includeKnownBugs: boolean }>();
  const options: Options = { ...raw, seed: raw.seed ?? randomBytes(4).readInt32BE() };
  if (!options.includeKnownBugs && KNOWN_BUGS.length > 0) {
    console.log(
      `leaving out the triggers of ${KNOWN_BUGS.length} known bug(s) (--include-known-bugs sends them): ${KNOWN_BUGS.map((b) => b.name).join('; ')}`,
    );
  }
  const perStore = (options.minutes * 60_000) / options.stores.length;
  let violations = 0;
  for (const store of options.stores) {
    const result = await fuzzStore(store, perStore, options);
    report(result, options.seed);
    violations += result.violationCount;
  }
  return violations > 0 ? 1 : 0;
}

// Exit explicitly: embedded-postgres's exit hook would otherwise turn any exit code into 0.
try {
  process.exit(await main());
} catch (error) {
  console.error(error);
  process.exit(2);
}
