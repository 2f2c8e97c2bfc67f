import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SessionActivity, type SessionActivityBatch, type SessionActivityCount } from '../../src/embed-sessions/session-activity.js';
import type { Environment } from '../../src/kernel/environment.js';
import type { NewUserGroup, Store } from '../../src/store/store.js';
import type { UsageRange } from '../../src/usage/usage.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { deleteGroup, insertGroup } from '../helpers/group-writes.js';

const EARLY = '2026-01-01T00:00:00.000Z';
const at = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2026, 5, day, hour, minute));
const hourOf = (day: number, hour: number) => at(day, hour).toISOString();
const dayOf = (day: number) => at(day, 0).toISOString();
const range = (from: string, to: string, granularity: UsageRange['granularity']): UsageRange => ({ from, to, granularity });

function group(environment: Environment, providedId: string): NewUserGroup {
  return newGroup(providedId, { environment, at: EARLY });
}

function count(environment: Environment, teamId: number, hourStart: string, minted: number, renewed = 0): SessionActivityCount {
  return { environment, teamId, hourStart, minted, renewed, lastMintedAt: minted > 0 ? hourStart : null };
}

function batch(batchId: string, parts: Partial<SessionActivityBatch>): SessionActivityBatch {
  return { batchId, counts: [], viewers: [], viewerHours: [], ...parts };
}

/**
 * The usage half of the store conformance suite: the counts the activity
 * flushes write (renewals, viewer-hours as a set, the latest mint, the
 * retention) and the reads of the usage port, on every store; two workers
 * (two SessionActivity over one store) and two replicas (two stores over one
 * database) counting one group and the same viewers.
 */
export function usageStoreConformance(fixture: StoreFixture): void {
  describe(`Store usage: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());
    const teamOf = async (environment: Environment, id: string) => (await insertGroup(store, group(environment, id))).group.teamId;

    it('answers per hour and per UTC day: sessions, renewals and distinct viewers, a batch applied twice counted once, each environment its own', async () => {
      const team = await teamOf('Customer', 'u-hours');
      const first = batch('u-1', {
        counts: [
          count('Customer', team, hourOf(2, 9), 3, 1),
          count('Customer', team, hourOf(2, 23), 1, 2),
          count('Testing', team, hourOf(2, 9), 7),
        ],
        viewerHours: [
          { environment: 'Customer', teamId: team, hourStart: hourOf(2, 9), viewerId: 'ana' },
          { environment: 'Customer', teamId: team, hourStart: hourOf(2, 9), viewerId: 'bo' },
          { environment: 'Customer', teamId: team, hourStart: hourOf(2, 23), viewerId: 'ana' },
        ],
      });
      await store.embedSessions.addSessionActivity(first, EARLY);
      await store.embedSessions.addSessionActivity(first, EARLY);
      await store.embedSessions.addSessionActivity(
        batch('u-2', {
          counts: [count('Customer', team, hourOf(3, 0), 0, 4)],
          viewerHours: [{ environment: 'Customer', teamId: team, hourStart: hourOf(3, 0), viewerId: 'ana' }],
        }),
        EARLY,
      );
      assert.deepEqual(await store.usage.listUsage('Customer', team, range(hourOf(2, 0), hourOf(4, 0), 'hour')), [
        { start: hourOf(2, 9), sessions: 3, renewals: 1, viewers: 2 },
        { start: hourOf(2, 23), sessions: 1, renewals: 2, viewers: 1 },
        { start: hourOf(3, 0), sessions: 0, renewals: 4, viewers: 1 },
      ]);
      assert.deepEqual(
        await store.usage.listUsage('Customer', team, range(dayOf(1), dayOf(4), 'day')),
        [
          { start: dayOf(2), sessions: 4, renewals: 3, viewers: 2 },
          { start: dayOf(3), sessions: 0, renewals: 4, viewers: 1 },
        ],
        'a day counts a viewer seen in two of its hours once',
      );
      assert.deepEqual(
        await store.usage.listUsage('Customer', team, range(hourOf(2, 10), hourOf(2, 23), 'hour')),
        [],
        'the end is exclusive',
      );
      assert.deepEqual(await store.usage.listUsage('Testing', team, range(dayOf(1), dayOf(4), 'day')), [
        { start: dayOf(2), sessions: 7, renewals: 0, viewers: 0 },
      ]);
    });

    it("sums an environment's groups per bucket, a viewer id seen in two groups once", async () => {
      const [a, b] = [await teamOf('Testing', 'u-env-a'), await teamOf('Testing', 'u-env-b')];
      const hour = hourOf(10, 12);
      await store.embedSessions.addSessionActivity(
        batch('u-env', {
          counts: [count('Testing', a, hour, 2), count('Testing', b, hour, 5, 1)],
          viewerHours: [
            { environment: 'Testing', teamId: a, hourStart: hour, viewerId: 'ana' },
            { environment: 'Testing', teamId: b, hourStart: hour, viewerId: 'ana' },
            { environment: 'Testing', teamId: b, hourStart: hour, viewerId: 'bo' },
          ],
        }),
        EARLY,
      );
      assert.deepEqual(await store.usage.listUsage('Testing', null, range(dayOf(10), dayOf(11), 'day')), [
        { start: dayOf(10), sessions: 7, renewals: 1, viewers: 2 },
      ]);
    });

    it('counts exactly what two workers (two counters, one store) and two replicas (two stores, one database) counted of one group and the same viewers', async () => {
      const team = await teamOf('Customer', 'u-processes');
      const other = await fixture.reopen();
      try {
        const clock = () => at(12, 8, 30);
        const counters = [store, store, other, other].map((s) => new SessionActivity(s.embedSessions, randomUUID, { now: clock }));
        const viewers = ['ana', 'bo', 'cy', 'dee', 'eve'];
        for (let round = 0; round < 3; round++) {
          counters.forEach((counter, i) => {
            for (let n = 0; n < 10; n++) {
              const viewer = viewers[(n + i) % viewers.length];
              counter.record('Customer', team, at(12, 8, n), viewer);
              counter.record('Customer', team, at(12, 9, n), viewer, 'renewed');
            }
          });
          await Promise.all(counters.map((counter) => counter.flush()));
        }
      } finally {
        await other.close();
      }
      assert.deepEqual(await store.usage.listUsage('Customer', team, range(dayOf(12), dayOf(13), 'hour')), [
        { start: hourOf(12, 8), sessions: 120, renewals: 0, viewers: 5 },
        { start: hourOf(12, 9), sessions: 0, renewals: 120, viewers: 5 },
      ]);
      assert.deepEqual(await store.usage.listUsage('Customer', team, range(dayOf(12), dayOf(13), 'day')), [
        { start: dayOf(12), sessions: 120, renewals: 120, viewers: 5 },
      ]);
      const [ranked] = await store.usage.rankGroups('Customer', range(dayOf(12), dayOf(13), 'hour'), 100);
      assert.deepEqual(ranked, {
        teamId: team,
        userGroupId: 'u-processes',
        name: 'Group u-processes',
        sessions: 120,
        renewals: 120,
        viewers: 5,
        lastSessionAt: at(12, 8, 9).toISOString(),
      });
    });

    it("ranks the environment's existing groups by sessions in the range, then renewals, then id: totals, distinct viewers, the latest mint", async () => {
      const ids = ['r-low', 'r-top', 'r-tie-b', 'r-tie-a', 'r-renewals', 'r-gone', 'r-outside'];
      const team: Record<string, number> = {};
      for (const id of ids) team[id] = await teamOf('Customer', id);
      const otherEnvironment = await teamOf('Testing', 'r-top');
      const [h1, h2, before] = [hourOf(20, 10), hourOf(21, 15), hourOf(19, 23)];
      const mints = (id: string, hourStart: string, minted: number, renewed = 0) =>
        count('Customer', team[id]!, hourStart, minted, renewed);
      await store.embedSessions.addSessionActivity(
        batch('r-1', {
          counts: [
            mints('r-low', h1, 1),
            mints('r-top', h1, 6),
            { ...mints('r-top', h2, 4), lastMintedAt: '2026-06-21T15:42:10.123Z' },
            mints('r-top', before, 50),
            mints('r-tie-b', h1, 3, 2),
            mints('r-tie-a', h2, 3, 2),
            mints('r-renewals', h2, 0, 9),
            mints('r-gone', h1, 99),
            mints('r-outside', before, 40),
            count('Testing', otherEnvironment, h1, 500),
          ],
          viewerHours: ['ana', 'bo', 'ana'].map((viewerId, i) => ({
            environment: 'Customer' as const,
            teamId: team['r-top']!,
            hourStart: [h1, h2, before][i]!,
            viewerId: i === 2 ? 'cy' : viewerId,
          })),
        }),
        EARLY,
      );
      await deleteGroup(store, 'Customer', 'r-gone', '2026-06-22T00:00:00.000Z');
      const window = range(dayOf(20), dayOf(22), 'hour');
      const ranked = await store.usage.rankGroups('Customer', window, 100);
      assert.deepEqual(
        ranked.map((g) => [g.userGroupId, g.sessions, g.renewals, g.viewers]),
        [
          ['r-top', 10, 0, 2],
          ['r-tie-a', 3, 2, 0],
          ['r-tie-b', 3, 2, 0],
          ['r-low', 1, 0, 0],
          ['r-renewals', 0, 9, 0],
        ],
        'a deleted group, groups with nothing in the range and other environments are left out',
      );
      assert.equal(ranked[0]!.lastSessionAt, '2026-06-21T15:42:10.123Z', 'the latest mint, wherever it was counted');
      assert.equal(ranked[0]!.name, 'Group r-top');
      assert.equal(ranked[4]!.lastSessionAt, null, 'renewals only: no mint kept');
      assert.deepEqual(
        (await store.usage.rankGroups('Customer', window, 2)).map((g) => g.userGroupId),
        ['r-top', 'r-tie-a'],
      );
    });

    it('forgets the hours before the retention a bounded batch per flush, counts and viewer-hours alike, and keeps the rest', async () => {
      const team = await teamOf('Customer', 'u-retention');
      const old = Array.from({ length: 1010 }, (_, i) => new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString());
      const recent = hourOf(25, 10);
      await store.embedSessions.addSessionActivity(
        batch('keep-1', {
          counts: [...old, recent].map((hour) => count('Customer', team, hour, 1)),
          viewerHours: [...old, recent].map((hourStart) => ({
            environment: 'Customer' as const,
            teamId: team,
            hourStart,
            viewerId: 'ana',
          })),
        }),
        EARLY,
      );
      const everything = range('2025-01-01T00:00:00.000Z', dayOf(26), 'day');
      const totals = async () => {
        const buckets = await store.usage.listUsage('Customer', team, everything);
        return [buckets.reduce((sum, b) => sum + b.sessions, 0), buckets.reduce((sum, b) => sum + b.viewers, 0)];
      };
      assert.deepEqual(await totals(), [1011, 43 + 1], 'one viewer on each day: the 43 days the old hours touch, and the recent one');
      const forgetBefore = dayOf(1);
      await store.embedSessions.addSessionActivity(batch('keep-2', {}), EARLY, forgetBefore);
      assert.equal((await totals())[0], 11, 'a bounded batch (1,000 hours) forgotten per flush, not all at once');
      for (let i = 0; i < 5; i++) await store.embedSessions.addSessionActivity(batch(`keep-3-${i}`, {}), EARLY, forgetBefore);
      assert.deepEqual(await store.usage.listUsage('Customer', team, everything), [
        { start: dayOf(25), sessions: 1, renewals: 0, viewers: 1 },
      ]);
    });
  });
}
