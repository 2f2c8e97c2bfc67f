import { invalidRequest } from '../kernel/errors.js';

/** How a usage range is cut: UTC hours or UTC days. */
export type Granularity = 'hour' | 'day';
export const GRANULARITIES: readonly Granularity[] = ['hour', 'day'];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const BUCKET_MS: Record<Granularity, number> = { hour: HOUR_MS, day: DAY_MS };

export const USAGE_LIMITS = {
  /** The longest range one answer covers (GET .../usage, GET /api/usage). */
  rangeMaxDays: 90,
  /**
   * What "the last days" means when nobody says how many: the API's range when `from` is left out, the console's
   * charts and `ugs usage` (see lastDays).
   */
  rangeDefaultDays: 30,
  /** How many groups GET /api/usage ranks. */
  topDefault: 10,
  topMax: 100,
} as const;

/** A range cut into whole buckets: `from` is a bucket's start, `to` the end of the last one (exclusive). */
export interface UsageRange {
  from: string;
  to: string;
  granularity: Granularity;
}

/** One bucket of a group's (or an environment's) usage. */
export interface UsageBucket {
  /** The bucket's first instant, ISO 8601 UTC. */
  start: string;
  /** Sessions minted in it. */
  sessions: number;
  /** Tokens renewed in it (POST /api/embed_sessions/renew). */
  renewals: number;
  /** Distinct viewers with a session minted or renewed in it (sessions minted without a viewer name none). */
  viewers: number;
}

/** A group's totals over a range, as GET /api/usage ranks them. */
export interface GroupUsage {
  teamId: number;
  userGroupId: string;
  name: string;
  sessions: number;
  renewals: number;
  viewers: number;
  /** The latest mint's instant of this group, within the retention; null when none is kept. */
  lastSessionAt: string | null;
}

/** What a caller asks for, as text (the query string, the CLI): every part optional. */
export interface UsageQuery {
  from?: string;
  to?: string;
  granularity?: Granularity;
}

// RFC 3339's date-time: a date, a time, seconds, an optional fraction, and Z or an offset.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** True when the text's date is one of the calendar (Date.parse takes February 30 for March 2). */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function instant(name: 'from' | 'to', text: string): number {
  const at = RFC3339.test(text) && isCalendarDate(text) ? Date.parse(text.replace(' ', 'T')) : NaN;
  if (Number.isNaN(at))
    throw invalidRequest(`"${name}" must be an RFC 3339 date-time such as 2026-11-01T00:00:00Z, not ${JSON.stringify(text)}.`);
  return at;
}

/** The end of the bucket that holds `at`: the range through it holds `at`, even on a bucket's first instant. */
function endOfBucketHolding(at: number, granularity: Granularity): number {
  const size = BUCKET_MS[granularity];
  return (Math.floor(at / size) + 1) * size;
}

/** The first instant of the last `days` UTC days up to and including the one holding `at`. */
function startOfLastDays(days: number, at: number): number {
  return (Math.floor(at / DAY_MS) - (days - 1)) * DAY_MS;
}

/**
 * "The last `days` days", the one definition the API's default range, the console's charts and `ugs usage` share:
 * the `days` whole UTC days up to and including today's, through the bucket holding `now` (per day, exactly `days`
 * buckets whatever the time of day; per hour, up to the current hour, none after).
 */
export function lastDays(days: number, now: Date, granularity: Granularity = 'day'): UsageRange {
  return {
    from: new Date(startOfLastDays(days, now.getTime())).toISOString(),
    to: new Date(endOfBucketHolding(now.getTime(), granularity)).toISOString(),
    granularity,
  };
}

/**
 * The range a query names, cut into the granularity's UTC buckets: the first is the one holding `from`, the last
 * the one holding the instant before `to`. Left out, `to` is the end of the bucket holding now and `from` the start
 * of the last 30 UTC days up to the one holding `to`'s last instant: with neither, lastDays(30). At most 90 days,
 * `from` before `to`.
 */
export function usageRange(query: UsageQuery, now: Date): UsageRange {
  const granularity = query.granularity ?? 'day';
  const to = query.to === undefined ? endOfBucketHolding(now.getTime(), granularity) : instant('to', query.to);
  const from = query.from === undefined ? startOfLastDays(USAGE_LIMITS.rangeDefaultDays, to - 1) : instant('from', query.from);
  if (from >= to) throw invalidRequest('"from" must be before "to".');
  if (to - from > USAGE_LIMITS.rangeMaxDays * DAY_MS)
    throw invalidRequest(`The range from "from" to "to" is at most ${USAGE_LIMITS.rangeMaxDays} days.`);
  const size = BUCKET_MS[granularity];
  return {
    from: new Date(Math.floor(from / size) * size).toISOString(),
    to: new Date(Math.ceil(to / size) * size).toISOString(),
    granularity,
  };
}

/** Every bucket of the range, oldest first, those the store had nothing for as zeros. */
export function everyBucket(range: UsageRange, counted: readonly UsageBucket[]): UsageBucket[] {
  const byStart = new Map(counted.map((bucket) => [bucket.start, bucket]));
  const size = BUCKET_MS[range.granularity];
  const buckets: UsageBucket[] = [];
  for (let at = Date.parse(range.from); at < Date.parse(range.to); at += size) {
    const start = new Date(at).toISOString();
    buckets.push(byStart.get(start) ?? { start, sessions: 0, renewals: 0, viewers: 0 });
  }
  return buckets;
}
