/**
 * When the next attempt of a delivery is due, after attempt `attempt`
 * (1-based) failed, on a schedule of delays in ms (the n-th is waited before
 * attempt n, counted from the previous one; the first from the event). Null
 * when that was the last attempt: the delivery has failed. Non-zero delays get
 * ±10 % jitter so that receivers recovering from an outage are not hit by
 * every retry at the same instant.
 */
export function nextAttemptAt(
  attempt: number,
  scheduleMs: readonly number[],
  failedAt: Date,
  random: () => number = Math.random,
): Date | null {
  if (attempt >= scheduleMs.length) return null;
  const delay = scheduleMs[attempt]!;
  const jittered = delay === 0 ? 0 : delay * (0.9 + 0.2 * random());
  return new Date(failedAt.getTime() + Math.round(jittered));
}

/** When a new delivery's first attempt is due: the schedule's first delay after the event is dispatched. */
export function firstAttemptAt(scheduleMs: readonly number[], dispatchedAt: Date): Date {
  return new Date(dispatchedAt.getTime() + (scheduleMs[0] ?? 0));
}

/** Attempts that answer 2xx succeed; anything else (3xx included: redirects are not followed) fails. */
export function isSuccess(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode < 300;
}
