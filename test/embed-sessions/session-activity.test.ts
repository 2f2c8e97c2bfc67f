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
      () => new Date('2026-05-01T10:30:00.000Z'),
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
      { environment: 'Customer', teamId: 1, hourStart: HOUR[0], minted: 5 },
      { environment: 'Customer', teamId: 2, hourStart: HOUR[0], minted: 1 },
      { environment: 'Customer', teamId: 1, hourStart: HOUR[1], minted: 1 },
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
});
