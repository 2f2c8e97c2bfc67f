import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../src/kernel/errors.js';
import { everyBucket, lastDays, usageRange } from '../../src/usage/usage.js';

const NOW = new Date('2026-11-26T08:30:15.250Z');
const invalid = (message: RegExp) => (error: unknown) =>
  error instanceof ServiceError && error.code === 'invalid_request' && message.test(error.message);

describe('usage ranges and buckets', () => {
  it("defaults to the last 30 UTC days, today's included (lastDays(30): 30 daily buckets), and cuts a range at UTC bucket bounds around from and to", () => {
    assert.deepEqual(usageRange({}, NOW), { from: '2026-10-28T00:00:00.000Z', to: '2026-11-27T00:00:00.000Z', granularity: 'day' });
    assert.deepEqual(usageRange({}, NOW), lastDays(30, NOW));
    assert.equal(everyBucket(usageRange({}, NOW), []).length, 30);
    // Per hour: the same first day, up to the hour holding now, none after.
    assert.deepEqual(usageRange({ granularity: 'hour' }, NOW), lastDays(30, NOW, 'hour'));
    assert.deepEqual(usageRange({ granularity: 'hour' }, NOW), {
      from: '2026-10-28T00:00:00.000Z',
      to: '2026-11-26T09:00:00.000Z',
      granularity: 'hour',
    });
    // On a bucket's first instant, that bucket is the last: today is in, whatever the time.
    const midnight = new Date('2026-11-26T00:00:00.000Z');
    assert.deepEqual(usageRange({}, midnight), { from: '2026-10-28T00:00:00.000Z', to: '2026-11-27T00:00:00.000Z', granularity: 'day' });
    // With "to" alone, the 30 UTC days up to the one holding its last instant: 30 daily buckets at any time of day.
    assert.equal(usageRange({ to: '2026-02-01T12:00:00.000Z' }, NOW).from, '2026-01-03T00:00:00.000Z');
    assert.equal(everyBucket(usageRange({ to: '2026-02-01T12:00:00.000Z' }, NOW), []).length, 30);
    assert.deepEqual(usageRange({ from: '2026-11-26T05:59:59+02:00', to: '2026-11-26T06:00:00Z', granularity: 'hour' }, NOW), {
      from: '2026-11-26T03:00:00.000Z',
      to: '2026-11-26T06:00:00.000Z',
      granularity: 'hour',
    });
    assert.deepEqual(usageRange({ to: '2026-02-01T00:00:00.000Z' }, NOW).from, '2026-01-02T00:00:00.000Z');
  });

  it('refuses a range past 90 days, from not before to, and text that is not an RFC 3339 date-time', () => {
    assert.doesNotThrow(() => usageRange({ from: '2026-01-01T00:00:00Z', to: '2026-04-01T00:00:00Z' }, NOW));
    assert.throws(() => usageRange({ from: '2026-01-01T00:00:00Z', to: '2026-04-01T00:00:00.001Z' }, NOW), invalid(/at most 90 days/));
    // "to" left out ends with the bucket holding now: a "from" at its end is not before it.
    assert.throws(() => usageRange({ from: '2026-11-27T00:00:00Z' }, NOW), invalid(/"from" must be before "to"/));
    assert.throws(() => usageRange({ from: '2026-11-26T09:00:00Z', granularity: 'hour' }, NOW), invalid(/"from" must be before "to"/));
    for (const text of ['2026-11-01', '2026-11-01T00:00Z', 'yesterday', '2026-02-30T00:00:00Z', '2026-11-01T00:00:00', '1e12'])
      assert.throws(() => usageRange({ to: text }, NOW), invalid(/"to" must be an RFC 3339 date-time/), text);
  });

  it("fills every bucket of a range, zeros where the store had nothing; the last days end with today's", () => {
    const range = lastDays(3, NOW);
    assert.deepEqual(range, { from: '2026-11-24T00:00:00.000Z', to: '2026-11-27T00:00:00.000Z', granularity: 'day' });
    assert.deepEqual(everyBucket(range, [{ start: '2026-11-25T00:00:00.000Z', sessions: 2, renewals: 1, viewers: 1 }]), [
      { start: '2026-11-24T00:00:00.000Z', sessions: 0, renewals: 0, viewers: 0 },
      { start: '2026-11-25T00:00:00.000Z', sessions: 2, renewals: 1, viewers: 1 },
      { start: '2026-11-26T00:00:00.000Z', sessions: 0, renewals: 0, viewers: 0 },
    ]);
  });
});
