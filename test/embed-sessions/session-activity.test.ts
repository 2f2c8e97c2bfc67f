import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SessionActivity, type SessionActivityBatch } from '../../src/embed-sessions/session-activity.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const HOUR = ['2026-05-01T10:00:00.000Z', '2026-05-01T11:00:00.000Z'] as const;

describe('SessionActivity: counts in memory, written in batches', () => {
  const dir = makeTempDir('ugs-activity');
  let store: SqliteStore;
  /** The store, failing the next `failures` writes after applying them (an answer lost) or before (an outage). */
  const flaky = { failures: 0, applyFirst: false, batches: [] as SessionActivityBatch[] };
  let activity: SessionActivity;
  let ids = 0;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'store.sqlite') })).store;
    activity = new SessionActivity(
      {
        async addSessionActivity(batch, now) {
          flaky.batches.push(batch);
          if (flaky.failures > 0) {
            flaky.failures--;
            if (flaky.applyFirst) await store.embedSessions.addSessionActivity(batch, now);
            throw new Error('connection lost');
          }
          await store.embedSessions.addSessionActivity(batch, now);
        },
      },
      () => `batch-${++ids}`,
      { now: () => new Date('2026-05-01T10:30:00.000Z') },
    );
  });
  after(async () => {
    await store.close();
    dir.remove();
  });
  const stored = async (teamId: number) => (await store.embedSessions.listSessionActivity('Customer', teamId, ...HOUR))[0]?.minted ?? 0;

  it('adds up mints per group and hour, one batch per flush, and nothing for an empty flush', async () => {
    for (let i = 0; i < 5; i++) activity.record('Customer', 1, new Date('2026-05-01T10:05:00.000Z'));
    activity.record('Customer', 2, new Date('2026-05-01T10:59:59.999Z'));
    activity.record('Customer', 1, new Date('2026-05-01T11:00:00.000Z'));
    await activity.flush();
    assert.equal(flaky.batches.length, 1);
    assert.deepEqual(flaky.batches[0]!.counts, [
      { environment: 'Customer', teamId: 1, hourStart: HOUR[0], minted: 5, renewed: 0, lastMintedAt: '2026-05-01T10:05:00.000Z' },
      { environment: 'Customer', teamId: 2, hourStart: HOUR[0], minted: 1, renewed: 0, lastMintedAt: '2026-05-01T10:59:59.999Z' },
      { environment: 'Customer', teamId: 1, hourStart: HOUR[1], minted: 1, renewed: 0, lastMintedAt: '2026-05-01T11:00:00.000Z' },
    ]);
    assert.equal(await stored(1), 5);
    await activity.flush();
    assert.equal(flaky.batches.length, 1, 'nothing counted, nothing written');
  });

  it('keeps a batch whose write failed and sends it again with its id first: applied once whether or not the failed write landed', async () => {
    for (const applyFirst of [false, true]) {
      const before = await stored(3);
      activity.record('Customer', 3, new Date('2026-05-01T10:10:00.000Z'));
      activity.record('Customer', 3, new Date('2026-05-01T10:10:00.000Z'));
      Object.assign(flaky, { failures: 1, applyFirst });
      await assert.rejects(activity.flush(), /connection lost/);
      activity.record('Customer', 3, new Date('2026-05-01T10:20:00.000Z'));
      const sent = flaky.batches.length;
      await activity.flush();
      const [retried, next] = flaky.batches.slice(sent);
      assert.equal(retried!.batchId, flaky.batches[sent - 1]!.batchId, 'the failed batch again, same id');
      assert.deepEqual(
        next!.counts.map((c) => c.minted),
        [1],
        'then what was counted since',
      );
      assert.equal(await stored(3), before + 3, applyFirst ? 'the lost answer did not count twice' : 'the outage lost nothing');
    }
  });

  it('runs one flush at a time: concurrent flushes write each count once', async () => {
    for (let i = 0; i < 50; i++) activity.record('Customer', 4, new Date('2026-05-01T10:40:00.000Z'));
    await Promise.all([activity.flush(), activity.flush(), activity.flush()]);
    assert.equal(await stored(4), 50);
  });

  it('counts renewals beside mints, each viewer once per group and hour, keeps the latest mint, and tells observers of each session', async () => {
    const seen: string[] = [];
    const stop = activity.observe((environment, kind) => seen.push(`${environment}:${kind}`));
    activity.record('Customer', 5, new Date('2026-05-01T10:01:00.000Z'), 'ana');
    activity.record('Customer', 5, new Date('2026-05-01T10:07:00.000Z'), 'ana', 'renewed');
    activity.record('Customer', 5, new Date('2026-05-01T10:09:00.000Z'), 'bo', 'renewed');
    activity.record('Customer', 5, new Date('2026-05-01T10:03:00.000Z'));
    activity.record('Testing', 5, new Date('2026-05-01T10:04:00.000Z'), undefined, 'renewed');
    stop();
    activity.record('Customer', 5, new Date('2026-05-01T10:05:00.000Z'), 'cy', 'renewed');
    assert.deepEqual(seen, ['Customer:minted', 'Customer:renewed', 'Customer:renewed', 'Customer:minted', 'Testing:renewed']);
    await activity.flush();
    const batch = flaky.batches.at(-1)!;
    assert.deepEqual(batch.counts, [
      { environment: 'Customer', teamId: 5, hourStart: HOUR[0], minted: 2, renewed: 3, lastMintedAt: '2026-05-01T10:03:00.000Z' },
      { environment: 'Testing', teamId: 5, hourStart: HOUR[0], minted: 0, renewed: 1, lastMintedAt: null },
    ]);
    assert.deepEqual(
      batch.viewerHours.map((h) => `${h.environment}:${h.teamId}:${h.hourStart}:${h.viewerId}`),
      ['ana', 'bo', 'cy'].map((v) => `Customer:5:${HOUR[0]}:${v}`),
    );
    assert.deepEqual(
      batch.viewers.map((v) => [v.viewerId, v.sessions]),
      [['ana', 1]],
      "a viewer's sessions (GET .../viewers) are its mints; renewals count it active only",
    );
    const [stored5] = await store.embedSessions.listSessionActivity('Customer', 5, ...HOUR);
    assert.deepEqual([stored5!.minted, stored5!.renewed, stored5!.lastMintedAt], [2, 3, '2026-05-01T10:03:00.000Z']);
  });

  it('asks the store to forget the hours past the retention with every flush', async () => {
    const calls: (string | undefined)[] = [];
    const kept = new SessionActivity(
      { addSessionActivity: async (_batch, _now, forgetBefore) => void calls.push(forgetBefore) },
      () => 'retained',
      { now: () => new Date('2026-05-01T10:30:00.000Z'), retentionDays: 90 },
    );
    kept.record('Customer', 6, new Date('2026-05-01T10:00:00.000Z'));
    await kept.flush();
    assert.deepEqual(calls, ['2026-01-31T10:30:00.000Z']);
  });
});
