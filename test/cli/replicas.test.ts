import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ServerProcess } from '../helpers/cli.js';
import { ApiClient, rawRequest, type RawResponse } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { Sandbox, stopServer, STACK_LINE } from './cli-support.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Far longer than the test: only the revocation itself can make a replica look the key up again. */
const KEY_CACHE_TTL_MS = 60_000;

/** How many API key lookups a replica has made in the store, from its own /metrics. */
async function keyLookups(replica: ServerProcess): Promise<number> {
  const metrics = await rawRequest(replica.url, { method: 'GET', path: '/metrics' });
  const sample = /^ugs_store_operation_duration_seconds_count\{operation="findApiKeyByHash"\} (\d+)$/m.exec(metrics.text);
  return Number(sample?.[1] ?? 0);
}

/** Repeats a request until the replica answers it without looking the key up: the key is then cached there. */
async function untilCached(replica: ServerProcess, client: ApiClient): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const before = await keyLookups(replica);
    assert.equal((await client.getOrCreate({ user_group_id: 'wave' })).status, 200);
    if ((await keyLookups(replica)) === before) return;
    await sleep(50);
  }
  assert.fail(`${replica.url} never cached the key`);
}

/**
 * Many replicas, proven: two `ugs serve` processes over one PostgreSQL
 * database behave as one service: what one replica does is what the other sees
 * on its very next request, API keys included, though each replica caches them.
 */
describe('two replicas over one PostgreSQL database', () => {
  const sandbox = new Sandbox();
  const secret = randomBytes(32).toString('hex');
  let database: TestDatabase;
  let env: Record<string, string>;
  let replicaA: ServerProcess;
  let replicaB: ServerProcess;
  let key: string;
  let keyId: string;
  /** The 'wave' group as the replicas agreed on it in the first test. */
  let wave: { teamId: string; token: string } | undefined;

  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, UGS_SECRET: secret, LOG_LEVEL: 'info', UGS_KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) };
    // Each replica gets its own (unused) data dir: the database is the only shared state.
    [replicaA, replicaB] = await Promise.all([
      sandbox.serve(sandbox.dir('ugs-replica-a'), env),
      sandbox.serve(sandbox.dir('ugs-replica-b'), env),
    ]);
    ({ key, id: keyId } = await sandbox.createKey(sandbox.dir('ugs-replica-cli'), [], env));
  });

  after(async () => {
    await sandbox.cleanup();
    await database?.drop();
  });

  it('answers 64 concurrent get-or-create calls split across both replicas with one group, one team_id and one token', async () => {
    const clients = [new ApiClient(replicaA.url, key), new ApiClient(replicaB.url, key)];
    const answers: RawResponse[] = await Promise.all(
      Array.from({ length: 64 }, (_, i) => clients[i % 2]!.getOrCreate({ user_group_id: 'wave', name: 'Wave' })),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const bodies = answers.map((a) => a.json);
    assert.equal(bodies.filter((b) => b.new_user_group === true).length, 1, 'exactly one call created the group');
    assert.equal(bodies.filter((b) => b.new_user_group === false).length, 63);
    const teamIds = new Set(bodies.map((b) => b.user_group.team_id));
    const tokens = new Set(bodies.map((b) => b.user_group.token));
    assert.equal(teamIds.size, 1, `one team_id, got ${[...teamIds].join(', ')}`);
    assert.equal(tokens.size, 1, 'one token');
    wave = { teamId: [...teamIds][0], token: [...tokens][0] };
    assert.equal(typeof wave.token, 'string');
  });

  it('a rotation through replica A makes the old token fail through replica B at once', async () => {
    assert.ok(wave, 'the first test created the group');
    const viaA = new ApiClient(replicaA.url, key);
    const viaB = new ApiClient(replicaB.url, key);

    const rotated = await viaA.rotate(wave.token);
    assert.equal(rotated.status, 200, rotated.text);
    const newToken: string = rotated.json.user_group.token;
    assert.notEqual(newToken, wave.token);

    const stale = await viaB.rotate(wave.token);
    assert.equal(stale.status, 404, stale.text);
    assert.equal(stale.json.success, 0);
    assert.equal(stale.json.error.code, 'not_found');

    const read = await viaB.getOrCreate({ user_group_id: 'wave' });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.new_user_group, false);
    assert.equal(read.json.user_group.team_id, wave.teamId);
    assert.equal(read.json.user_group.token, newToken, 'replica B serves the token replica A issued');
  });

  it('two concurrent moves that would close a cycle, one through each replica, never both succeed', async () => {
    const viaA = new ApiClient(replicaA.url, key);
    const viaB = new ApiClient(replicaB.url, key);
    for (let round = 0; round < 20; round++) {
      const [a, b] = [`cycle-a-${round}`, `cycle-b-${round}`];
      for (const id of [a, b]) assert.equal((await viaA.getOrCreate({ user_group_id: id, name: id })).status, 200);
      const moves = await Promise.all([
        viaA.update({ user_group_id: a, parent_user_group_id: b }),
        viaB.update({ user_group_id: b, parent_user_group_id: a }),
      ]);
      assert.deepEqual(moves.map((m) => m.status).sort(), [200, 409], `round ${round}: ${moves.map((m) => m.text).join(' | ')}`);
    }
  });

  it('reads raced against rotations, updates and deletes through the other replica never answer a state the database has left', async () => {
    // Each replica keeps the groups it read (PostgreSQL's lookup cache, postgres-group-cache.ts). A state is retired
    // when the write that replaced it is acknowledged; a read sent after that moment must not answer it, from either
    // replica. Each write through A is preceded by a read through B (B holds the state) and followed by one (B must
    // not answer it again); in the second half, readers keep both replicas busy meanwhile, so the writes race batches
    // of reads in flight.
    const viaA = new ApiClient(replicaA.url, key);
    const viaB = new ApiClient(replicaB.url, key);
    const id = 'raced';
    const retired: { at: number; what: string; seen: (group: { team_id: string; name: string; token: string }) => boolean }[] = [];
    const stale: string[] = [];
    let racing = false;
    let reads = 0;
    async function read(client: ApiClient, replica: string) {
      const sent = performance.now();
      // A name of its own, in case this read recreates the group: a retired name never comes back.
      const answer = await client.getOrCreate({ user_group_id: id, name: `made by read ${reads++}` });
      assert.equal(answer.status, 200, answer.text);
      const group = answer.json.user_group;
      for (const state of retired) if (state.at < sent && state.seen(group)) stale.push(`replica ${replica} answered ${state.what}`);
      return group;
    }
    async function keepReading(client: ApiClient, replica: string): Promise<void> {
      while (racing) await read(client, replica);
    }
    async function write(round: number): Promise<void> {
      const before = await read(viaB, 'B');
      await read(viaA, 'A');
      if (round % 3 === 0) {
        const name = `v${round}`;
        assert.equal((await viaA.update({ user_group_id: id, name })).status, 200);
        retired.push({ at: performance.now(), what: `the name ${before.name} after ${name}`, seen: (g) => g.name === before.name });
      } else if (round % 3 === 1) {
        const rotated = await viaA.rotate(before.token);
        assert.equal(rotated.status, 200, rotated.text);
        retired.push({ at: performance.now(), what: `a token after its rotation (round ${round})`, seen: (g) => g.token === before.token });
      } else {
        assert.equal((await viaA.call('DELETE', { user_group_id: id })).status, 200);
        retired.push({
          at: performance.now(),
          what: `team ${before.team_id} after its deletion`,
          seen: (g) => g.team_id === before.team_id,
        });
      }
      await read(viaB, 'B');
    }
    for (let round = 0; round < 15; round++) await write(round);
    racing = true;
    const readers = [keepReading(viaB, 'B'), keepReading(viaB, 'B'), keepReading(viaB, 'B'), keepReading(viaA, 'A')];
    try {
      for (let round = 15; round < 45; round++) await write(round);
    } finally {
      racing = false;
      await Promise.all(readers);
    }
    assert.deepEqual(stale, [], `${stale.length} stale answers among ${reads} reads`);
  });

  it('a key revoked with `ugs keys revoke` is refused by both replicas within moments, far inside their 60 s cache, though both had it cached', async () => {
    const viaA = new ApiClient(replicaA.url, key);
    const viaB = new ApiClient(replicaB.url, key);
    // The key works on both before the revocation, and each replica has it cached.
    await untilCached(replicaA, viaA);
    await untilCached(replicaB, viaB);

    const revoked = await sandbox.ugs(sandbox.dir('ugs-replica-cli'), ['keys', 'revoke', keyId], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`Revoked ${keyId}`));

    // Each replica learns of it from PostgreSQL's notification, sent at the commit, usually before the CLI has even exited:
    // the next request is refused. On a loaded machine the replica may read a request before the notification, so a
    // few are allowed within 5 s, still far inside the cache's 60 s: only the notification can explain the refusal.
    for (const [name, client] of [
      ['A', viaA],
      ['B', viaB],
    ] as const) {
      const deadline = Date.now() + 5000;
      let answer = await client.getOrCreate({ user_group_id: 'wave' });
      while (answer.status === 200 && Date.now() < deadline) {
        await sleep(20);
        answer = await client.getOrCreate({ user_group_id: 'wave' });
      }
      assert.equal(answer.status, 401, `replica ${name}: ${answer.text}`);
      assert.equal(answer.json.error.code, 'unauthenticated');
    }
  });

  it('both replicas exit 0 on SIGTERM', async () => {
    const [codeA, codeB] = await Promise.all([stopServer(replicaA, 'SIGTERM'), stopServer(replicaB, 'SIGTERM')]);
    assert.equal(codeA, 0, replicaA.output());
    assert.equal(codeB, 0, replicaB.output());
    for (const replica of [replicaA, replicaB]) {
      assert.ok(!replica.output().includes(STACK_LINE), replica.output());
      assert.ok(!replica.output().includes(secret), 'the secret is not logged');
      assert.ok(!replica.output().includes(new URL(database.url).password), 'the database password is not logged');
    }
  });
});
