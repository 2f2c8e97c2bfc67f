import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstAttemptAt, isSuccess, nextAttemptAt } from '../../src/webhooks/webhook-retry.js';

const SCHEDULE = [0, 5_000, 300_000];
const AT = new Date('2026-01-01T00:00:00Z');

describe('webhook retry schedule', () => {
  it('waits the n-th delay after attempt n-1 failed, with ±10 % jitter on non-zero delays, then gives up', () => {
    assert.equal(firstAttemptAt(SCHEDULE, AT).getTime(), AT.getTime());
    assert.equal(nextAttemptAt(1, SCHEDULE, AT, () => 0.5)!.getTime(), AT.getTime() + 5_000);
    assert.equal(nextAttemptAt(1, SCHEDULE, AT, () => 0)!.getTime(), AT.getTime() + 4_500);
    assert.equal(nextAttemptAt(1, SCHEDULE, AT, () => 0.999_999)!.getTime(), AT.getTime() + 5_500);
    assert.equal(nextAttemptAt(2, SCHEDULE, AT, () => 0.5)!.getTime(), AT.getTime() + 300_000);
    assert.equal(nextAttemptAt(3, SCHEDULE, AT), null, 'the third attempt was the last');
    assert.equal(nextAttemptAt(1, [0, 0], AT, () => 0)!.getTime(), AT.getTime(), 'no jitter on a zero delay');
  });

  it('counts only 2xx as success: redirects and errors fail', () => {
    for (const status of [200, 201, 204, 299]) assert.equal(isSuccess(status), true, String(status));
    for (const status of [null, 100, 301, 302, 304, 400, 410, 500, 503]) assert.equal(isSuccess(status), false, String(status));
  });
});
