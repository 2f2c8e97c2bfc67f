import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from '../helpers/cli.js';
import { ApiClient, rawRequest, type RawResponse } from '../helpers/http-client.js';
import { isRunning, lines, Sandbox, stopServer, waitForOutput } from './cli-support.js';
import { isAlive } from '../helpers/process-alive.js';

/** The pids of the processes that logged `message`. */
function pidsLogging(server: ServerProcess, message: string): Set<number> {
  const pids = lines(server.output())
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { pid: number; msg: string })
    .filter((entry) => entry.msg === message)
    .map((entry) => entry.pid);
  return new Set(pids);
}

async function waitUntilGone(pids: Iterable<number>, boundMs = 10_000): Promise<void> {
  for (let waited = 0; waited < boundMs; waited += 50) {
    if (![...pids].some(isAlive)) return;
    await sleep(50);
  }
  assert.fail(`processes still running: ${[...pids].filter(isAlive).join(', ')}`);
}

/** The sum of a Prometheus counter's samples whose labels include `labels`. */
function sumSamples(text: string, name: string, labels: string): number {
  return lines(text)
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/**
 * UGS_WORKERS=2 on the embedded store: two processes share the port and the
 * SQLite file, and behave as one service. Every request uses a new connection,
 * so node:cluster spreads them over both workers.
 */
describe('ugs serve with UGS_WORKERS=2', () => {
  const sandbox = new Sandbox();
  let dataDir: string;
  let server: ServerProcess;
  let api: ApiClient;
  let workerPids: Set<number>;

  before(async () => {
    dataDir = sandbox.dir('ugs-workers');
    const { key } = await sandbox.createKey(dataDir);
    // A key cache far longer than the tests: only a revocation can make a worker look a key up again.
    server = await sandbox.serve(dataDir, { UGS_WORKERS: '2', UGS_KEY_CACHE_TTL_MS: '60000' });
    await waitForOutput(server, '"msg":"all workers listening"');
    // The primary hears a worker listening before the worker logs its own line: wait for both lines.
    for (let waited = 0; pidsLogging(server, 'user group service listening').size < 2 && waited < 10_000; waited += 50) await sleep(50);
    workerPids = pidsLogging(server, 'user group service listening');
    api = new ApiClient(server.url, key);
  });

  after(() => sandbox.cleanup());

  it('runs two worker processes besides the primary, which serves no HTTP itself', () => {
    assert.equal(workerPids.size, 2);
    assert.ok(!workerPids.has(server.child.pid!));
    assert.match(server.output(), /"workers":2/);
  });

  it('answers 64 concurrent get-or-create calls, spread over both workers, with one group, one team_id and one token', async () => {
    const answers: RawResponse[] = await Promise.all(
      Array.from({ length: 64 }, () => api.getOrCreate({ user_group_id: 'wave', name: 'Wave' })),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const bodies = answers.map((a) => a.json);
    assert.equal(bodies.filter((b) => b.new_user_group === true).length, 1, 'exactly one call created the group');
    assert.equal(new Set(bodies.map((b) => b.user_group.team_id)).size, 1);
    assert.equal(new Set(bodies.map((b) => b.user_group.token)).size, 1);
    await waitForOutput(server, '"url":"/api/user"');
    // Each worker's log reaches the output on its own schedule (pino writes asynchronously).
    let answering = pidsLogging(server, 'request completed');
    for (let waited = 0; answering.size < workerPids.size && waited < 5000; waited += 25) {
      await sleep(25);
      answering = pidsLogging(server, 'request completed');
    }
    assert.deepEqual([...answering].sort(), [...workerPids].sort(), 'both workers answered');
  });

  it('a rotation through one worker makes the old token fail on every worker at once', async () => {
    const before = (await api.getOrCreate({ user_group_id: 'spin', name: 'Spin' })).json.user_group.token as string;
    const rotated = await api.rotate(before);
    assert.equal(rotated.status, 200, rotated.text);
    const retries = await Promise.all(Array.from({ length: 10 }, () => api.rotate(before)));
    for (const retry of retries) assert.equal(retry.status, 404, retry.text);
    const reads = await Promise.all(Array.from({ length: 10 }, () => api.getOrCreate({ user_group_id: 'spin' })));
    for (const read of reads) assert.equal(read.json.user_group.token, rotated.json.user_group.token);
  });

  it('refuses a key revoked with `ugs keys revoke` on every worker from the very next request, though each had it cached', async () => {
    const { key, id } = await sandbox.createKey(dataDir, ['--name', 'doomed']);
    const doomed = new ApiClient(server.url, key);
    // A new connection per request: node:cluster hands them to the workers in turn, so each caches the key.
    const warm = await Promise.all(Array.from({ length: 8 }, () => doomed.getOrCreate({ user_group_id: 'wave' })));
    for (const answer of warm) assert.equal(answer.status, 200, answer.text);

    const revoke = await sandbox.ugs(dataDir, ['keys', 'revoke', id]);
    assert.equal(revoke.code, 0, revoke.stderr);
    const after = await Promise.all(Array.from({ length: 8 }, () => doomed.getOrCreate({ user_group_id: 'wave' })));
    for (const answer of after) assert.equal(answer.status, 401, answer.text);
  });

  it('serves /metrics for the whole service: counts summed over the workers, groups counted once', async () => {
    const before = sumSamples(
      (await rawRequest(server.url, { method: 'GET', path: '/metrics' })).text,
      'ugs_http_requests_total',
      'route="/api/user"',
    );
    await Promise.all(Array.from({ length: 20 }, (_, i) => api.getOrCreate({ user_group_id: `counted-${i}`, name: 'Counted' })));
    const metrics = await rawRequest(server.url, { method: 'GET', path: '/metrics' });
    assert.equal(metrics.status, 200, metrics.text);
    assert.equal(sumSamples(metrics.text, 'ugs_http_requests_total', 'route="/api/user"') - before, 20);
    const groups = /^ugs_user_groups\{environment="Customer"\} (\d+)$/m.exec(metrics.text)?.[1];
    assert.equal(groups, String(2 + 20), 'wave, spin and the 20 counted groups, not once per worker');
  });

  it('sums the embed sessions counted by each worker in ugs_embed_sessions_total', async () => {
    const minted = () =>
      rawRequest(server.url, { method: 'GET', path: '/metrics' }).then((r) =>
        sumSamples(r.text, 'ugs_embed_sessions_total', 'environment="Customer",kind="minted"'),
      );
    const before = await minted();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api.call('POST', { user_group_id: 'wave' }, { path: '/api/embed_sessions' })),
    );
    for (const answer of answers) assert.equal(answer.status, 201, answer.text);
    assert.equal((await minted()) - before, 20);
  });

  it('two concurrent moves that would close a cycle, spread over both workers, never both succeed', async () => {
    for (let round = 0; round < 20; round++) {
      const [a, b] = [`cycle-a-${round}`, `cycle-b-${round}`];
      for (const id of [a, b]) assert.equal((await api.getOrCreate({ user_group_id: id, name: id })).status, 200);
      const moves = await Promise.all([
        api.update({ user_group_id: a, parent_user_group_id: b }),
        api.update({ user_group_id: b, parent_user_group_id: a }),
      ]);
      assert.deepEqual(moves.map((m) => m.status).sort(), [200, 409], `round ${round}: ${moves.map((m) => m.text).join(' | ')}`);
    }
  });

  it('stops every worker gracefully on SIGTERM and exits 0', async () => {
    const code = await stopServer(server);
    assert.equal(code, 0, server.output());
    await waitUntilGone(workerPids);
    assert.equal(pidsLogging(server, 'shutting down: finishing in-flight requests').size, 2);
  });
});

describe('a worker that dies', () => {
  const sandbox = new Sandbox();
  after(() => sandbox.cleanup());

  it('stops the other workers and makes the service exit 1, so its supervisor restarts it whole', async () => {
    const dataDir = sandbox.dir('ugs-workers-crash');
    const server = await sandbox.serve(dataDir, { UGS_WORKERS: '2' });
    await waitForOutput(server, '"msg":"all workers listening"');
    const [victim, survivor] = [...pidsLogging(server, 'user group service listening')];
    process.kill(victim!, 'SIGKILL');
    await waitForOutput(server, 'a worker exited unexpectedly');
    for (let waited = 0; isRunning(server) && waited < 60_000; waited += 50) await sleep(50);
    assert.equal(server.child.exitCode, 1, server.output());
    await waitUntilGone([survivor!]);
  });
});
