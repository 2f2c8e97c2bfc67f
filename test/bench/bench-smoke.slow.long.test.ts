import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { runBenchmark, runFrameworkFloor, SERVICE_NODE_FLAGS, startCannedServer, type Measurement } from '../../bench/benchmark.js';
import type { CannedReply } from '../../bench/canned-reply.js';
import { detectLoadGenerator, unpinnedLoad } from '../../bench/load-generator.js';
import { runScale } from '../../bench/scale.js';
import { createTestDatabase, testServerAdminUrl } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** Every response of a run was 2xx, with no socket error or timeout. */
function assertClean(what: string, measurements: Measurement[]): void {
  assert.ok(measurements.length > 0, `${what} ran`);
  for (const m of measurements) {
    assert.equal(m.non2xx, 0, `${what}: non-2xx responses`);
    assert.equal(m.errors, 0, `${what}: errors or timeouts`);
    assert.ok(m.requestsPerSecond > 0, `${what}: requests were answered`);
  }
}

/** One GET /api/user with a JSON body, as the hit scenario sends it: the answer's status, the two canned headers and the body. */
function get(url: string): Promise<CannedReply> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ user_group_id: 'seed-1' });
    const req = request(
      `${url}/api/user`,
      { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: { 'content-type': String(res.headers['content-type']), 'cache-control': String(res.headers['cache-control']) },
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// Checks that `npm run bench` executes every scenario cleanly, each once and as short as wrk allows (1 s);
// speed is the benchmark's business, not this test's.
describe('benchmark smoke run', () => {
  for (const store of ['sqlite', 'postgres'] as const) {
    it(`runs every scenario on ${store} with only 2xx answers`, async () => {
      const dir = makeTempDir('ugs-bench-smoke');
      const database = store === 'postgres' ? await createTestDatabase() : undefined;
      try {
        const results = await runBenchmark({
          stores: [
            {
              name: store,
              env: { UGS_DATA_DIR: dir.path, UGS_SECRET: randomBytes(32).toString('hex'), ...(database && { DATABASE_URL: database.url }) },
            },
          ],
          scenarios: ['hit', 'create', 'update', 'rotate'],
          connections: 8,
          durationSeconds: 1,
          // One pair after the warm-up's: a service run after a ceiling run shows state leaking between them (it once did, for rotate).
          pairs: 1,
          seedGroups: 64,
          // Two workers: the multi-process mode's writes must stay clean too (SQLite locking across processes).
          workers: 2,
        });
        assert.deepEqual(
          results.map((r) => r.scenario),
          ['hit', 'create', 'update', 'rotate'],
        );
        for (const r of results) {
          assertClean(`${r.store} ${r.scenario}`, r.service);
          assertClean(`${r.store} ${r.scenario} ceiling`, r.ceiling);
          assert.ok(r.ratio > 0);
        }
      } finally {
        await database?.drop();
        dir.remove();
      }
    });
  }

  // With 2 cores, taskset and wrk the runs above were pinned wrk runs; this is the fallback for machines without.
  it('falls back to unpinned autocannon, with only 2xx answers', async () => {
    const dir = makeTempDir('ugs-bench-smoke');
    try {
      const results = await runBenchmark({
        stores: [{ name: 'sqlite', env: { UGS_DATA_DIR: `${dir.path}/sqlite`, UGS_SECRET: randomBytes(32).toString('hex') } }],
        scenarios: ['hit', 'rotate'],
        connections: 8,
        durationSeconds: 1,
        pairs: 1,
        seedGroups: 64,
        workers: 1,
        generator: unpinnedLoad('smoke test'),
      });
      for (const r of results) {
        assertClean(`unpinned ${r.scenario}`, r.service);
        assertClean(`unpinned ${r.scenario} ceiling`, r.ceiling);
      }
    } finally {
      dir.remove();
    }
  });

  it('pins the runs exactly where it can: 2 cores or more, with taskset and wrk on PATH (as .ci/run installs them)', async () => {
    // Decided here independently of detectLoadGenerator, so that a detection that never pins (or always does) fails.
    const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
    const canPin = availableParallelism() >= 2 && onPath('taskset') && onPath('wrk');
    const generator = await detectLoadGenerator();
    assert.equal(generator.pinned, canPin, generator.description);
    assert.match(generator.description, canPin ? /^pinned: .*core 0.*wrk -t1 on core 1/ : /^NOT pinned \(/);
  });

  it('runs the service with the Node flags `npm start` uses, so it measures what is run', () => {
    const start = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } })
      .scripts.start;
    for (const flag of SERVICE_NODE_FLAGS) assert.ok(start.split(' ').includes(flag), `npm start lacks ${flag}: ${start}`);
  });

  it('measures the framework floor against the ceiling, both answering the bytes they are given, with only 2xx answers', async () => {
    const reply: CannedReply = {
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      body: JSON.stringify({
        success: 1,
        new_user_group: false,
        user_group: { team_id: 1, token: `ugt_${'x'.repeat(49)}`, name: 'Seed 1' },
      }),
    };
    for (const kind of ['floor', 'ceiling'] as const) {
      const server = await startCannedServer(kind, reply, []);
      try {
        assert.deepEqual(await get(server.url), reply, kind);
      } finally {
        await server.stop();
      }
    }
    const result = await runFrameworkFloor({ connections: 8, durationSeconds: 1, pairs: 1, seedGroups: 64, reply });
    assertClean('framework floor', result.floor);
    assertClean('framework floor ceiling', result.ceiling);
    assert.ok(result.ratio > 0);
  });

  it('`npm run bench` measures hit, mint, the floor, the bare signature and the scale runs by default and prints the budget table', async () => {
    const main = fileURLToPath(new URL('../../bench/main.js', import.meta.url));
    const args = [
      '--duration',
      '1',
      '--pairs',
      '1',
      '--connections',
      '8',
      '--seed',
      '64',
      '--stores',
      'sqlite',
      '--scenarios',
      'hit,mint',
      '--scale',
      '200',
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [main, ...args], { maxBuffer: 16 * 2 ** 20 });
    assert.match(stdout, /^\| hit \| sqlite \| \d+ \|/m);
    assert.match(stdout, /^\| mint \| sqlite \| \d+ \|/m);
    assert.match(stdout, /^Framework floor \(.*answering the bytes of sqlite hit.*ratio \d/m);
    assert.match(stdout, /^\| ES256 \| bare ES256 sign \(node:crypto\) \|/m);
    assert.match(stdout, /^\| sqlite \| 200 \| \d+ \| 1\.00 \|/m);
    const budget = stdout.slice(stdout.indexOf('| goal | store | measured | budget | result |'));
    const rows = budget
      .split('\n')
      .slice(2)
      .filter((row) => row.startsWith('| '))
      .map((row) => row.split(' | '));
    // Every goal of issues 28 and 42 has its line, whatever the verdict.
    assert.deepEqual(
      rows.map((r) => [r[0], r[1]]),
      [
        ['| mint CPU ≤ hit CPU + bare signature + 15 µs', 'sqlite'],
        ['| mint CPU ≤ hit CPU + bare signature + 15 µs', 'postgres'],
        ['| PostgreSQL hit ≥ 0.8 × SQLite hit', 'postgres vs sqlite'],
        ['| PostgreSQL mint ≥ 0.9 × SQLite mint', 'postgres vs sqlite'],
        ['| hit within 10 % of the framework floor', 'sqlite'],
        ['| hit within 10 % of the framework floor', 'postgres'],
        ['| durable create CPU ≤ 50 µs', 'sqlite'],
        ['| durable create ≥ 0.25 of its ceiling', 'sqlite'],
        ['| PostgreSQL create ≥ 0.8 × SQLite create', 'postgres vs sqlite'],
        ['| hit at 1,000,000 groups within 10 % of 1,000', 'sqlite'],
        ['| hit at 1,000,000 groups within 10 % of 1,000', 'postgres'],
        ['| mint at 1,000,000 groups within 10 % of 1,000', 'sqlite'],
        ['| mint at 1,000,000 groups within 10 % of 1,000', 'postgres'],
        ['| peak RSS at 1,000,000 groups < 200 MB', 'sqlite'],
        ['| peak RSS at 1,000,000 groups < 200 MB', 'postgres'],
      ],
    );
    // Measured on SQLite (pass or FAIL, whichever this machine gives); the PostgreSQL lines lack their store,
    // create was not run, and the scale ran neither 1,000 nor 1,000,000 groups.
    const result = (goal: string, store: string) => rows.find((r) => r[0] === `| ${goal}` && r[1] === store)?.at(-1);
    assert.match(String(result('mint CPU ≤ hit CPU + bare signature + 15 µs', 'sqlite')), /^(pass|FAIL) \|$/);
    assert.match(String(result('hit within 10 % of the framework floor', 'sqlite')), /^(pass|FAIL) \|$/);
    assert.equal(result('mint CPU ≤ hit CPU + bare signature + 15 µs', 'postgres'), 'not measured |');
    assert.equal(result('PostgreSQL mint ≥ 0.9 × SQLite mint', 'postgres vs sqlite'), 'not measured |');
    assert.equal(result('hit within 10 % of the framework floor', 'postgres'), 'not measured |');
    assert.equal(result('durable create CPU ≤ 50 µs', 'sqlite'), 'not measured |');
    assert.equal(result('hit at 1,000,000 groups within 10 % of 1,000', 'sqlite'), 'not measured |');
  });

  it('runs the scale scenarios on both stores with the fast loader, reporting load time, time to ready and peak RSS', async () => {
    const results = await runScale([500, 200], {
      connections: 8,
      durationSeconds: 1,
      runs: 1,
      stores: [{ name: 'sqlite' }, { name: 'postgres', adminUrl: await testServerAdminUrl() }],
    });
    assert.deepEqual(
      results.map((r) => [r.store, r.groups]),
      [
        ['sqlite', 200],
        ['sqlite', 500],
        ['postgres', 200],
        ['postgres', 500],
      ],
    );
    for (const result of results) {
      const what = `scale ${result.store} ${result.groups}`;
      // Only 2xx: hit and mint found every loaded group, create reused no loaded id.
      assertClean(`${what} hit`, result.hit);
      assertClean(`${what} mint`, result.mint);
      assertClean(`${what} create`, result.create);
      assert.ok(result.loadMs > 0);
      assert.ok(result.readyMs > 0);
      assert.ok(result.peakRssMb! > 0);
      assert.ok(result.hitVsSmallest > 0);
      assert.ok(result.mintVsSmallest > 0);
    }
    for (const smallest of [results[0]!, results[2]!]) {
      assert.equal(smallest.hitVsSmallest, 1);
      assert.equal(smallest.mintVsSmallest, 1);
    }
  });
});
