/**
 * The one format of every time `ugs` prints, in its tables, its messages and the log lines `ugs serve`
 * writes: ISO 8601 in UTC to the millisecond (`2026-11-29T03:41:47.825Z`), as the API answers times. The
 * log once wrote epoch milliseconds (`"time":1795924780012`) beside tables of ISO times (issue 43).
 */
export function isoTime(value: string | number | Date): string {
  const time = value instanceof Date ? value : new Date(value);
  // A value that is no time is shown as given rather than as "Invalid Date" or a RangeError.
  return Number.isNaN(time.getTime()) ? String(value) : time.toISOString();
}

/** A time, or `absent` (a key never used, a group never updated) where there is none. */
export function isoTimeOr(value: string | number | Date | null | undefined, absent: string): string {
  return value === null || value === undefined ? absent : isoTime(value);
}

let lastMs = -1;
let lastField = '';

/**
 * pino's `timestamp` option: `,"time":"<isoTime>"`. Formatted once per millisecond: a busy server writes
 * many lines in one, and each line would otherwise format the same Date again.
 */
export function isoTimeLogField(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastField = `,"time":"${isoTime(now)}"`;
  }
  return lastField;
}
