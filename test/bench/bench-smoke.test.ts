import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { runBenchmark, runFrameworkFloor, SERVICE_NODE_FLAGS, type Measurement } from '../../bench/benchmark.js';
import { detectLoadGenerator, unpinnedLoad } from '../../bench/load-generator.js';
import { runScale } from '../../bench/scale.js';
import { createTestDatabase } from '../helpers/postgres.js';
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

  it('measures the framework floor against the ceiling with only 2xx answers', async () => {
    const result = await runFrameworkFloor({ connections: 8, durationSeconds: 1, pairs: 1 });
    assertClean('framework floor', result.floor);
    assertClean('framework floor ceiling', result.ceiling);
    assert.ok(result.ratio > 0);
  });

  it('runs the scale scenarios with the fast loader, reporting time to ready and peak RSS', async () => {
    const results = await runScale([200, 500], { connections: 8, durationSeconds: 1, runs: 1 });
    assert.deepEqual(
      results.map((r) => r.groups),
      [200, 500],
    );
    for (const result of results) {
      assertClean('scale hit', result.hit);
      assertClean('scale create', result.create);
      assert.ok(result.readyMs > 0);
      assert.ok(result.peakRssMb > 0);
      assert.ok(result.hitVsSmallest > 0);
    }
    assert.equal(results[0]!.hitVsSmallest, 1);
  });
});
