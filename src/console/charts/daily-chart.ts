import { axisCeiling, compactNumber, drawnValue, isoDay, shortDay, summarize, type DailyPoint } from './daily-series.js';
import { checkedId, coordinate, escapeMarkup } from './chart-markup.js';

export interface DailyChartOptions {
  /** The chart's element id (chosen by the page, one token); its title, description and table ids derive from it. */
  id: string;
  /** What is drawn, e.g. "Sessions per day". */
  title: string;
  /** What a value counts, plural, e.g. "sessions". */
  unit: string;
  series: readonly DailyPoint[];
  shape?: 'bars' | 'line';
}

/** The drawing's own coordinates: a viewBox the page scales to its width (13-unit labels stay 11 px at 375 px wide). */
export const VIEW = { width: 400, height: 180 } as const;
/** The plotting area inside the viewBox: room on the left for the value labels, below for the dates. */
export const PLOT = { left: 40, right: 394, top: 14, bottom: 154 } as const;

const COLOURS = { data: '#0b5cad', grid: '#d0d7de', axis: '#57606a' } as const;

/**
 * A daily series as an SVG bar or line chart, as markup to place in a page: role="img" named by its <title>
 * (what, which days) and described by its <desc> (the total and the busiest day); the numbers of every day are
 * in the table chartTableHtml draws beside it. Colours are classes of console.css with presentation attributes
 * under them (the console's CSP allows no inline style); width follows the page, the viewBox keeps the shape.
 */
export function dailyChartSvg(options: DailyChartOptions): string {
  const id = checkedId(options.id);
  const { series, unit } = options;
  const summary = summarize(series);
  const title = series.length ? `${options.title}, ${summary.first} to ${summary.last}` : `${options.title}: no data`;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart-svg" viewBox="0 0 ${VIEW.width} ${VIEW.height}" width="100%" ` +
      `role="img" aria-labelledby="${id}-title" aria-describedby="${id}-desc">`,
    `<title id="${id}-title">${escapeMarkup(title)}</title>`,
    `<desc id="${id}-desc">${escapeMarkup(describe(series, unit))}</desc>`,
  ];
  const ceiling = axisCeiling(series);
  parts.push(
    line('chart-grid', PLOT.left, PLOT.top, PLOT.right, PLOT.top, COLOURS.grid),
    line('chart-axis', PLOT.left, PLOT.bottom, PLOT.right, PLOT.bottom, COLOURS.axis),
    label(PLOT.left - 6, PLOT.top + 4, 'end', compactNumber(ceiling)),
    label(PLOT.left - 6, PLOT.bottom + 4, 'end', '0'),
  );
  if (series.length === 0 || summary.total === 0) {
    parts.push(
      label((PLOT.left + PLOT.right) / 2, (PLOT.top + PLOT.bottom) / 2, 'middle', series.length ? `No ${unit}` : 'No data', 'chart-note'),
    );
  }
  const slot = (PLOT.right - PLOT.left) / Math.max(series.length, 1);
  const heightOf = (value: number) => (drawnValue(value) / ceiling) * (PLOT.bottom - PLOT.top);
  const tip = (point: DailyPoint) => `<title>${escapeMarkup(`${isoDay(point.start)}: ${point.value} ${unit}`)}</title>`;
  if ((options.shape ?? 'bars') === 'bars') {
    parts.push('<g class="chart-bars">');
    series.forEach((point, i) => {
      const height = heightOf(point.value);
      parts.push(
        `<rect class="chart-bar" x="${coordinate(PLOT.left + i * slot + slot * 0.1)}" y="${coordinate(PLOT.bottom - height)}" ` +
          `width="${coordinate(slot * 0.8)}" height="${coordinate(height)}" fill="${COLOURS.data}">${tip(point)}</rect>`,
      );
    });
    parts.push('</g>');
  } else if (series.length) {
    const points = series.map(
      (point, i) => `${coordinate(PLOT.left + (i + 0.5) * slot)},${coordinate(PLOT.bottom - heightOf(point.value))}`,
    );
    parts.push(`<polyline class="chart-line" points="${points.join(' ')}" fill="none" stroke="${COLOURS.data}" stroke-width="2"/>`);
    // Dots carry each day's tip, and show a one-day series, which a line cannot.
    series.forEach((point, i) => {
      const [x, y] = points[i]!.split(',');
      parts.push(`<circle class="chart-dot" cx="${x}" cy="${y}" r="2.5" fill="${COLOURS.data}">${tip(point)}</circle>`);
    });
  }
  parts.push(...dayLabels(series, slot), '</svg>');
  return parts.join('\n');
}

function describe(series: readonly DailyPoint[], unit: string): string {
  if (series.length === 0) return 'No days to show.';
  const { total, highest } = summarize(series);
  const days = series.length === 1 ? '1 day' : `${series.length} days`;
  const most = highest ? `; the most, ${highest.value}, on ${isoDay(highest.start)}` : '';
  return `${days}, ${total} ${unit} in all${most}. The table that follows has every day.`;
}

/** The first day, the last and one between them when there is room: what a reader needs to place the bars in time. */
function dayLabels(series: readonly DailyPoint[], slot: number): string[] {
  if (series.length === 0) return [];
  const y = PLOT.bottom + 18;
  const centre = (i: number) => PLOT.left + (i + 0.5) * slot;
  const labels = [
    label(series.length === 1 ? centre(0) : PLOT.left, y, series.length === 1 ? 'middle' : 'start', shortDay(series[0]!.start)),
  ];
  if (series.length >= 5) {
    const middle = Math.floor((series.length - 1) / 2);
    labels.push(label(centre(middle), y, 'middle', shortDay(series[middle]!.start)));
  }
  if (series.length >= 2) labels.push(label(PLOT.right, y, 'end', shortDay(series.at(-1)!.start)));
  return labels;
}

function line(className: string, x1: number, y1: number, x2: number, y2: number, stroke: string): string {
  return `<line class="${className}" x1="${coordinate(x1)}" y1="${coordinate(y1)}" x2="${coordinate(x2)}" y2="${coordinate(y2)}" stroke="${stroke}"/>`;
}

function label(x: number, y: number, anchor: 'start' | 'middle' | 'end', text: string, className = 'chart-label'): string {
  return `<text class="${className}" x="${coordinate(x)}" y="${coordinate(y)}" text-anchor="${anchor}" font-size="13" fill="${COLOURS.axis}">${escapeMarkup(text)}</text>`;
}
