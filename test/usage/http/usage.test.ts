import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';
import { mintToken, renewToken } from '../../helpers/embed-sessions.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

interface Bucket {
  start: string;
  sessions: number;
  renewals: number;
  viewers: number;
}

describe('usage: sessions, renewals and viewers per group', () => {
  const server = buildForSuite();
  let api: ApiClient;
  const usageOf = (group: string, query = '', client = api) =>
    client.call('GET', undefined, { path: `/api/user_groups/${encodeURIComponent(group)}/usage${query}` });
  const top = (query = '', client = api) => client.call('GET', undefined, { path: `/api/usage${query}` });
  const mint = (group: string, viewer?: string, client = api) => mintToken(client, group, viewer);
  const renew = (token: string) => renewToken(api, token);

  before(async () => {
    api = server.api;
    for (const [id, name] of [
      ['u-acme', 'Acme'],
      ['u-globex', 'Globex'],
      ['u-idle', 'Idle'],
    ])
      await api.getOrCreate({ user_group_id: id!, name: name! });
  });

  it('answers every bucket of the range, zeros included, with the mints, renewals and distinct viewers counted once flushed', async () => {
    const minted = Date.now();
    const ana = await mint('u-acme', 'ana');
    await mint('u-acme', 'ana');
    await mint('u-acme', 'bo');
    await mint('u-acme');
    await renew(ana);
    await renew(ana);
    const from = iso(Math.floor(minted / HOUR) * HOUR - 3 * HOUR);
    const to = iso(Math.floor(minted / HOUR) * HOUR + HOUR);
    const before = await usageOf('u-acme', `?from=${from}&to=${to}&granularity=hour`);
    assert.equal(before.status, 200, before.text);
    assert.ok(
      (before.json.usage as Bucket[]).every((b) => b.sessions === 0),
      'counted in memory until a flush (serving flushes every UGS_ACTIVITY_FLUSH_MS)',
    );
    await server.services.embedSessions.flushActivity();
    const res = await usageOf('u-acme', `?from=${from}&to=${to}&granularity=hour`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ['success', 'usage']);
    const buckets = res.json.usage as Bucket[];
    // The mints may straddle an hour's end: sum what the last two hours hold.
    assert.deepEqual(
      buckets.map((b) => b.start),
      [0, 1, 2, 3].map((h) => iso(Date.parse(from) + h * HOUR)),
    );
    assert.deepEqual(buckets.slice(0, 2), [
      { start: buckets[0]!.start, sessions: 0, renewals: 0, viewers: 0 },
      { start: buckets[1]!.start, sessions: 0, renewals: 0, viewers: 0 },
    ]);
    assert.deepEqual(
      [buckets.reduce((n, b) => n + b.sessions, 0), buckets.reduce((n, b) => n + b.renewals, 0)],
      [4, 2],
      'every mint and every renewal',
    );
    assert.ok(
      buckets.slice(2).some((b) => b.viewers === 2),
      'ana and bo: each viewer once',
    );
    const days = await usageOf('u-acme', `?from=${iso(Math.floor(minted / DAY) * DAY)}&to=${iso(Math.floor(minted / DAY) * DAY + DAY)}`);
    assert.deepEqual(days.json.usage, [{ start: iso(Math.floor(minted / DAY) * DAY), sessions: 4, renewals: 2, viewers: 2 }]);
    const idle = await usageOf('u-idle', '?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z');
    assert.deepEqual(idle.json, {
      success: 1,
      usage: [
        { start: '2026-01-01T00:00:00.000Z', sessions: 0, renewals: 0, viewers: 0 },
        { start: '2026-01-02T00:00:00.000Z', sessions: 0, renewals: 0, viewers: 0 },
      ],
    });
  });

  it("defaults to the last 30 UTC days, today's included (30 daily buckets), and takes offsets and up to 90 days", async () => {
    const asked = Date.now();
    const res = await usageOf('u-idle');
    assert.equal(res.status, 200, res.text);
    const starts = (res.json.usage as Bucket[]).map((b) => Date.parse(b.start));
    assert.equal(starts.at(-1), Math.floor(asked / DAY) * DAY, "today's bucket last");
    assert.equal(starts[0], Math.floor(asked / DAY) * DAY - 29 * DAY, 'the day 29 days before today first');
    assert.equal(starts.length, 30);
    assert.ok(starts.every((s, i) => i === 0 || s - starts[i - 1]! === DAY));
    const offset = await usageOf(
      'u-idle',
      `?from=${encodeURIComponent('2026-01-01T02:00:00+02:00')}&to=2026-01-01T03:00:00Z&granularity=hour`,
    );
    assert.deepEqual(
      (offset.json.usage as Bucket[]).map((b) => b.start),
      ['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z'],
    );
    const ninety = await usageOf('u-idle', '?from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:00Z&granularity=hour');
    assert.equal(ninety.status, 200, ninety.text);
    assert.equal(ninety.json.usage.length, 90 * 24);
  });

  it('answers 400, saying why, for a range past 90 days, from not before to, a from or to not RFC 3339, another granularity', async () => {
    const cases: [string, RegExp][] = [
      ['?from=2026-01-01T00:00:00Z&to=2026-04-01T00:00:01Z', /at most 90 days/],
      ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', /"from" must be before "to"/],
      ['?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', /"from" must be before "to"/],
      ['?from=yesterday', /"from" must be an RFC 3339 date-time/],
      ['?to=2026-13-01T00:00:00Z', /"to" must be an RFC 3339 date-time/],
      ['?from=2026-01-01', /"from" must be an RFC 3339 date-time/],
      ['?granularity=week', /granularity/],
    ];
    for (const [query, message] of cases) assert.match(assertError(await usageOf('u-acme', query), 400, 'invalid_request'), message, query);
    for (const query of ['?limit=0', '?limit=101', '?from=nope']) assertError(await top(query), 400, 'invalid_request');
  });

  it("answers 404 for another environment's group and an unknown one, 403 to embed keys; read-only keys read", async () => {
    const testing = await server.client({ environment: 'Testing' });
    await testing.getOrCreate({ user_group_id: 'u-testing-only', name: 'T' });
    assertError(await usageOf('u-testing-only'), 404, 'not_found');
    assertError(await usageOf('u-acme', '', testing), 404, 'not_found');
    assertError(await usageOf('u-never'), 404, 'not_found');
    const embed = await server.client({ access: 'embed' });
    assertError(await usageOf('u-acme', '', embed), 403, 'forbidden');
    assertError(await top('', embed), 403, 'forbidden');
    const reader = await server.client({ access: 'read-only' });
    assert.equal((await usageOf('u-acme', '', reader)).status, 200);
    assert.equal((await top('', reader)).status, 200);
  });

  it("ranks the environment's groups by sessions in the range with their totals, viewers and latest mint; limit keeps the top", async () => {
    const testing = await server.client({ environment: 'Testing' });
    await testing.getOrCreate({ user_group_id: 'u-globex', name: 'Testing Globex' });
    for (let i = 0; i < 6; i++) await mint('u-globex', 'testing-viewer', testing);
    for (const viewer of ['cy', 'dee', 'cy', 'eve', 'cy']) await mint('u-globex', viewer);
    const lastMint = Date.now();
    await server.services.embedSessions.flushActivity();
    const res = await top(`?from=${iso(Date.now() - DAY)}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ['success', 'from', 'to', 'groups']);
    const groups = res.json.groups as Record<string, unknown>[];
    assert.deepEqual(
      groups.map((g) => [g.user_group_id, g.name, g.sessions, g.renewals, g.viewers]),
      [
        ['u-globex', 'Globex', 5, 0, 3],
        ['u-acme', 'Acme', 4, 2, 2],
      ],
      "each group's totals; idle groups and the Testing environment's left out",
    );
    const last = Date.parse(groups[0]!.last_session_at as string);
    assert.ok(last <= lastMint && last > lastMint - 60_000, 'the latest mint, to the millisecond');
    assert.deepEqual(
      (await top('?limit=1')).json.groups.map((g: { user_group_id: string }) => g.user_group_id),
      ['u-globex'],
    );
    assert.deepEqual((await top('?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).json, {
      success: 1,
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
      groups: [],
    });
    assert.deepEqual(
      (await top('', testing)).json.groups.map((g: { user_group_id: string; sessions: number }) => [g.user_group_id, g.sessions]),
      [['u-globex', 6]],
    );
  });
});
