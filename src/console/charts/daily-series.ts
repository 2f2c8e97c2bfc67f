/** One day of a usage series: `start` is the day's bucket start (RFC 3339, UTC), `value` a count. */
export interface DailyPoint {
  start: string;
  value: number;
}

/** What a chart draws of a value: counts are finite and not negative; anything else is drawn as 0 (the table shows it as given). */
export function drawnValue(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * The axis' top: the smallest 1, 2, 2.5 or 5 times a power of ten at or above the largest value, so its label is a
 * round number (1 when all are 0).
 */
export function axisCeiling(series: readonly DailyPoint[]): number {
  const max = Math.max(0, ...series.map((point) => drawnValue(point.value)));
  if (max === 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** The day as YYYY-MM-DD (UTC, as the buckets are); a start that is not a date is shown as it came. */
export function isoDay(start: string): string {
  const time = Date.parse(start);
  return Number.isNaN(time) ? start : new Date(time).toISOString().slice(0, 10);
}

const SHORT_DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** The day as an axis shows it, e.g. "5 Mar": short enough for three labels at 375 px. */
export function shortDay(start: string): string {
  const time = Date.parse(start);
  return Number.isNaN(time) ? start : SHORT_DAY.format(time);
}

const COMPACT = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** An axis label: 12K rather than 12,000, so it fits the margin; the table has the exact numbers. */
export function compactNumber(value: number): string {
  return COMPACT.format(value);
}

export interface SeriesSummary {
  total: number;
  highest: DailyPoint | undefined;
  first: string;
  last: string;
}

/** What a chart's accessible name and description say: its range, its total and its busiest day. */
export function summarize(series: readonly DailyPoint[]): SeriesSummary {
  let highest: DailyPoint | undefined;
  for (const point of series) if (drawnValue(point.value) > 0 && (!highest || point.value > highest.value)) highest = point;
  return {
    total: series.reduce((sum, point) => sum + drawnValue(point.value), 0),
    highest,
    first: series.length ? isoDay(series[0]!.start) : '',
    last: series.length ? isoDay(series.at(-1)!.start) : '',
  };
}
