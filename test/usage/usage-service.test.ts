import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { SessionActivity } from '../../src/embed-sessions/session-activity.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { UsageService } from '../../src/usage/usage-service.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { newGroup } from '../helpers/new-group.js';
import { insertGroup } from '../helpers/group-writes.js';

const reader: Principal = { keyId: 'key_reader', environment: 'Customer', access: 'read-only' };
const NOW = new Date('2026-11-26T08:30:00.000Z');
const day = (offset: number) => new Date(Date.UTC(2026, 10, 26 + offset)).toISOString();
const code = (expected: string) => (error: unknown) => error instanceof ServiceError && error.code === expected;

/** What the console's pages draw, read through the service over a real store and a clock the test holds. */
describe("UsageService: the console's 30-day series", () => {
  const dir = makeTempDir('ugs-usage-service');
  let store: SqliteStore;
  let usage: UsageService;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'store.sqlite') })).store;
    usage = new UsageService({ store: store.usage, groups: store.userGroups, now: () => NOW });
    const teams: Record<string, number> = {};
    for (const id of ['acme', 'globex', 'initech'])
      teams[id] = (await insertGroup(store, newGroup(id, { name: id.toUpperCase(), at: day(-40) }))).group.teamId;
    const activity = new SessionActivity(store.embedSessions, randomUUID, { now: () => NOW });
    const at = (offset: number, hour: number) => new Date(Date.parse(day(offset)) + hour * 3_600_000);
    // acme: 3 sessions today (2 viewers) and a renewal; 2 sessions 29 days ago (the oldest day shown); 1 session 30 days ago (not shown).
    activity.record('Customer', teams['acme']!, at(0, 1), 'ana');
    activity.record('Customer', teams['acme']!, at(0, 2), 'ana');
    activity.record('Customer', teams['acme']!, at(0, 8), 'bo');
    activity.record('Customer', teams['acme']!, at(0, 8), 'bo', 'renewed');
    activity.record('Customer', teams['acme']!, at(-29, 0), 'cy');
    activity.record('Customer', teams['acme']!, at(-29, 23), 'cy');
    activity.record('Customer', teams['acme']!, at(-30, 12));
    // globex: 4 sessions yesterday; the same viewer id as acme's.
    for (let i = 0; i < 4; i++) activity.record('Customer', teams['globex']!, at(-1, i), 'ana');
    await activity.flush();
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it("a group's last 30 UTC days, today's last, zeros included", async () => {
    const { range, usage: days } = await usage.groupDays(reader, 'acme');
    assert.deepEqual(range, { from: day(-29), to: day(1), granularity: 'day' });
    assert.equal(days.length, 30);
    assert.deepEqual(days[0], { start: day(-29), sessions: 2, renewals: 0, viewers: 1 });
    assert.deepEqual(days[29], { start: day(0), sessions: 3, renewals: 1, viewers: 2 });
    assert.equal(
      days.slice(1, 29).every((d) => d.sessions + d.renewals + d.viewers === 0),
      true,
    );
    assert.equal((await usage.groupDays(reader, 'acme', 31)).usage[0]!.sessions, 1, 'the day 30 days ago, when asked for 31');
    await assert.rejects(usage.groupDays(reader, 'nobody'), code('not_found'));
    await assert.rejects(usage.groupDays(reader, 'acme', 91), code('invalid_request'));
  });

  it("the environment's per-day totals, and the top groups each with its per-day series", async () => {
    const { usage: totals } = await usage.environmentDays(reader);
    assert.equal(totals.length, 30);
    assert.deepEqual(totals.slice(-2), [
      { start: day(-1), sessions: 4, renewals: 0, viewers: 1 },
      { start: day(0), sessions: 3, renewals: 1, viewers: 2 },
    ]);
    const top = await usage.topGroupsDays(reader);
    assert.deepEqual(
      top.map((t) => [
        t.group.userGroupId,
        t.group.sessions,
        t.group.viewers,
        t.days.length,
        t.days.at(-2)!.sessions,
        t.days.at(-1)!.sessions,
      ]),
      [
        ['acme', 5, 3, 30, 0, 3],
        ['globex', 4, 1, 30, 4, 0],
      ],
      'initech, idle, is left out',
    );
    assert.deepEqual(
      (await usage.topGroupsDays(reader, 30, 1)).map((t) => t.group.userGroupId),
      ['acme'],
    );
  });

  it('refuses embed keys, which only mint', async () => {
    const embed: Principal = { ...reader, access: 'embed' };
    await assert.rejects(usage.groupDays(embed, 'acme'), code('forbidden'));
    await assert.rejects(usage.environmentDays(embed), code('forbidden'));
    await assert.rejects(usage.topGroupsDays(embed), code('forbidden'));
  });
});
