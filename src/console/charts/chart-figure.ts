import { chartTableHtml } from './chart-table.js';
import { checkedId, escapeMarkup } from './chart-markup.js';
import { dailyChartSvg, type DailyChartOptions } from './daily-chart.js';

/**
 * What a page places for a daily chart: a <figure> with the title shown as its caption, the SVG, and the table of
 * its numbers for screen readers (visually hidden). In an Eta view: `<%~ it.sessionsChart %>`, built by the route
 * with this function (the markup is escaped here, so Eta must not escape it again).
 */
export function dailyChartFigure(options: DailyChartOptions): string {
  const id = checkedId(options.id);
  return [
    `<figure class="chart" id="${id}">`,
    `<figcaption>${escapeMarkup(options.title)}</figcaption>`,
    dailyChartSvg(options),
    chartTableHtml({ id, caption: options.title, unit: options.unit, series: options.series }),
    `</figure>`,
  ].join('\n');
}
