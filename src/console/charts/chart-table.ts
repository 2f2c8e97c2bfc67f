import { isoDay, type DailyPoint } from './daily-series.js';
import { checkedId, escapeMarkup } from './chart-markup.js';

export interface ChartTableOptions {
  /** The chart's id: the table is `<id>-table`. */
  id: string;
  /** The table's caption, e.g. "Sessions per day". */
  caption: string;
  /** The value column's heading, e.g. "sessions". */
  unit: string;
  series: readonly DailyPoint[];
  /**
   * visually-hidden (the default): read by screen readers, not shown; in a hidden <div>, since a table itself will
   * not shrink to 1 px and would widen the page. visible: an ordinary table.
   */
  display?: 'visually-hidden' | 'visible';
}

/**
 * The numbers behind a chart as a table: one row per day, the day (a <time>) heading its row and the value as
 * given. Screen readers walk it cell by cell, which a chart's description read as one string would not allow, so
 * it is a real table the page keeps out of sight (console.css's visually-hidden) rather than the chart's
 * aria-describedby. Well-formed as XML too (every element closed), like the charts.
 */
export function chartTableHtml(options: ChartTableOptions): string {
  const id = checkedId(options.id);
  const heading = options.unit.charAt(0).toUpperCase() + options.unit.slice(1);
  const hidden = (options.display ?? 'visually-hidden') === 'visually-hidden';
  const rows = options.series.map((point) => {
    const day = escapeMarkup(isoDay(point.start));
    return `<tr><th scope="row"><time datetime="${day}">${day}</time></th><td>${escapeMarkup(String(point.value))}</td></tr>`;
  });
  if (rows.length === 0) rows.push('<tr><td colspan="2">No days to show.</td></tr>');
  return [
    ...(hidden ? ['<div class="visually-hidden">'] : []),
    `<table id="${id}-table" class="chart-table">`,
    `<caption>${escapeMarkup(options.caption)}</caption>`,
    `<thead><tr><th scope="col">Day</th><th scope="col">${escapeMarkup(heading)}</th></tr></thead>`,
    `<tbody>`,
    ...rows,
    `</tbody>`,
    `</table>`,
    ...(hidden ? ['</div>'] : []),
  ].join('\n');
}
