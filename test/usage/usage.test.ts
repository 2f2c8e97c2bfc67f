import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../src/kernel/errors.js';
import { everyBucket, lastDays, usageRange } from '../../src/usage/usage.js';

const NOW = new Date('2026-11-26T08:30:15.250Z');
const invalid = (message: RegExp) => (error: unknown) =>
  error instanceof ServiceError && error.code === 'invalid_request' && message.test(error.message);

describe('usage ranges and buckets', () => {
  it('defaults to the 30 days before now, per day, and cuts a range at UTC bucket bounds around from and to', () => {
    assert.deepEqual(usageRange({}, NOW), { from: '2026-10-27T00:00:00.000Z', to: '2026-11-27T00:00:00.000Z', granularity: 'day' });
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
    assert.throws(() => usageRange({ from: '2026-11-26T08:30:15.250Z' }, NOW), invalid(/"from" must be before "to"/));
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
