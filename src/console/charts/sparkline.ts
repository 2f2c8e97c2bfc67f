import { axisCeiling, drawnValue, isoDay, summarize, type DailyPoint } from './daily-series.js';
import { checkedId, coordinate, escapeMarkup } from './chart-markup.js';

export interface SparklineOptions {
  /** The element id (chosen by the page, one token, unique on it: one per table row). */
  id: string;
  /** Whose trend and of what, e.g. "acme, sessions per day". */
  label: string;
  series: readonly DailyPoint[];
}

/** The drawing's own coordinates, stretched to the cell (preserveAspectRatio="none"; the stroke keeps its width). */
export const SPARK = { width: 100, height: 24, inset: 2 } as const;

/**
 * A small trend line for a table row: no axes, the shape alone. role="img" named by its <title> (the label, the
 * days, the total, the last day) and described by its <desc>, every day's number in text, so the trend is
 * readable without the picture.
 */
export function sparklineSvg(options: SparklineOptions): string {
  const id = checkedId(options.id);
  const { series } = options;
  const summary = summarize(series);
  const title = series.length
    ? `${options.label}: ${summary.first} to ${summary.last}, ${summary.total} in all, ${series.at(-1)!.value} on the last day`
    : `${options.label}: no data`;
  const days = series.map((point) => `${isoDay(point.start)}: ${point.value}`).join(', ');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" viewBox="0 0 ${SPARK.width} ${SPARK.height}" preserveAspectRatio="none" ` +
      `role="img" aria-labelledby="${id}-title" aria-describedby="${id}-desc">`,
    `<title id="${id}-title">${escapeMarkup(title)}</title>`,
    `<desc id="${id}-desc">${escapeMarkup(days || 'No days to show.')}</desc>`,
  ];
  if (series.length) {
    const ceiling = axisCeiling(series);
    const yOf = (value: number) => SPARK.height - SPARK.inset - (drawnValue(value) / ceiling) * (SPARK.height - 2 * SPARK.inset);
    // One day is a level line across the cell: a single point draws nothing.
    const xs = series.length === 1 ? [0, SPARK.width] : series.map((_, i) => (i / (series.length - 1)) * SPARK.width);
    const values = series.length === 1 ? [series[0]!.value, series[0]!.value] : series.map((point) => point.value);
    const points = xs.map((x, i) => `${coordinate(x)},${coordinate(yOf(values[i]!))}`).join(' ');
    parts.push(
      `<polyline class="sparkline-line" points="${points}" fill="none" stroke="#0b5cad" stroke-width="1.5" vector-effect="non-scaling-stroke"/>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}
