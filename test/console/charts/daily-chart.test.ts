import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dailyChartFigure } from '../../../src/console/charts/chart-figure.js';
import { dailyChartSvg, PLOT, VIEW } from '../../../src/console/charts/daily-chart.js';
import { attribute, child, children, days, HOSTILE, parseMarkup, text, type Element } from './parse-markup.js';

const VALUES = [0, 3, 7, 14, 1, 0, 9, 12, 2, 5];

const svgOf = (markup: string): Element => child(parseMarkup(markup), 'svg');
const labels = (svg: Element): string[] => children(svg, 'text').map(text);

test('a bar chart: role img named by its title, described by its desc, as wide as its column, no inline style', () => {
  const markup = dailyChartSvg({ id: 'sessions', title: 'Sessions per day', unit: 'sessions', series: days(VALUES) });
  const svg = svgOf(markup);
  assert.equal(attribute(svg, 'role'), 'img');
  assert.equal(attribute(svg, 'viewBox'), `0 0 ${VIEW.width} ${VIEW.height}`);
  assert.equal(attribute(svg, 'width'), '100%', 'no fixed pixel width: the page decides');
  assert.equal(svg['@height'], undefined);
  assert.equal(attribute(svg, 'aria-labelledby'), 'sessions-title');
  assert.equal(attribute(svg, 'aria-describedby'), 'sessions-desc');
  assert.equal(attribute(child(svg, 'title'), 'id'), 'sessions-title');
  assert.equal(text(child(svg, 'title')), 'Sessions per day, 2026-03-01 to 2026-03-10');
  assert.equal(attribute(child(svg, 'desc'), 'id'), 'sessions-desc');
  assert.equal(text(child(svg, 'desc')), '10 days, 53 sessions in all; the most, 14, on 2026-03-04. The table that follows has every day.');
  assert.doesNotMatch(markup, /\sstyle=/, "the console's CSP (style-src 'self') would refuse it");
});

test("bars' heights are proportional to the values, on a round axis top labelled with the dates around them", () => {
  const svg = svgOf(dailyChartSvg({ id: 'sessions', title: 'Sessions per day', unit: 'sessions', series: days(VALUES) }));
  const bars = children(child(svg, 'g'), 'rect');
  assert.equal(bars.length, VALUES.length);
  const plotHeight = PLOT.bottom - PLOT.top;
  // Largest value 14: the axis tops at 20, the label says so, and a value v is v/20 of the plot's height.
  assert.deepEqual(labels(svg), ['20', '0', '1 Mar', '5 Mar', '10 Mar']);
  bars.forEach((bar, i) => {
    const height = Number(attribute(bar, 'height'));
    assert.ok(Math.abs(height - (VALUES[i]! / 20) * plotHeight) < 0.01, `bar ${i}: ${height}`);
    assert.ok(Math.abs(Number(attribute(bar, 'y')) + height - PLOT.bottom) < 0.01, 'every bar stands on the axis');
    assert.equal(text(child(bar, 'title')), `2026-03-${String(i + 1).padStart(2, '0')}: ${VALUES[i]} sessions`);
  });
  const xs = bars.map((bar) => Number(attribute(bar, 'x')));
  assert.deepEqual(
    xs,
    xs.toSorted((a, b) => a - b),
    'days left to right',
  );
  const last = bars.at(-1)!;
  assert.ok(Number(attribute(last, 'x')) + Number(attribute(last, 'width')) <= PLOT.right);
});

test('large counts get a compact axis label, exact tips', () => {
  const svg = svgOf(dailyChartSvg({ id: 'c', title: 'Sessions per day', unit: 'sessions', series: days([12_345, 40_000]) }));
  assert.deepEqual(labels(svg), ['50K', '0', '1 Mar', '2 Mar']);
  assert.equal(text(child(children(child(svg, 'g'), 'rect')[0]!, 'title')), '2026-03-01: 12345 sessions');
});

test('a line chart: one point per day at the same heights a bar would have, a dot carrying each tip', () => {
  const svg = svgOf(dailyChartSvg({ id: 'viewers', title: 'Viewers per day', unit: 'viewers', series: days(VALUES), shape: 'line' }));
  const points = attribute(child(svg, 'polyline'), 'points')
    .split(' ')
    .map((pair) => pair.split(',').map(Number));
  assert.equal(points.length, VALUES.length);
  points.forEach(([, y], i) => assert.ok(Math.abs(PLOT.bottom - y! - (VALUES[i]! / 20) * (PLOT.bottom - PLOT.top)) < 0.01));
  assert.equal(children(svg, 'circle').length, VALUES.length);
  assert.equal(children(svg, 'rect').length, 0);
});

test('an empty series: a frame that says so, no bars, no dates', () => {
  for (const shape of ['bars', 'line'] as const) {
    const svg = svgOf(dailyChartSvg({ id: 'empty', title: 'Sessions per day', unit: 'sessions', series: [], shape }));
    assert.equal(text(child(svg, 'title')), 'Sessions per day: no data');
    assert.equal(text(child(svg, 'desc')), 'No days to show.');
    assert.deepEqual(labels(svg), ['1', '0', 'No data']);
    assert.equal(children(svg, 'polyline').length + children(svg, 'circle').length, 0);
    assert.equal(children((svg['g'] as Element | undefined) ?? {}, 'rect').length, 0);
  }
});

test('an all-zero series: flat bars under an axis of 1, and a note that there were none', () => {
  const svg = svgOf(dailyChartSvg({ id: 'zero', title: 'Sessions per day', unit: 'sessions', series: days([0, 0, 0]) }));
  const bars = children(child(svg, 'g'), 'rect');
  assert.deepEqual(
    bars.map((bar) => attribute(bar, 'height')),
    ['0', '0', '0'],
  );
  assert.deepEqual(labels(svg), ['1', '0', 'No sessions', '1 Mar', '3 Mar']);
  assert.equal(text(child(svg, 'desc')), '3 days, 0 sessions in all. The table that follows has every day.');
});

test('one day is drawn with its date centred; a count that is not one is drawn as 0', () => {
  const one = svgOf(dailyChartSvg({ id: 'one', title: 'Sessions per day', unit: 'sessions', series: days([4]) }));
  assert.deepEqual(labels(one), ['5', '0', '1 Mar']);
  const odd = svgOf(dailyChartSvg({ id: 'odd', title: 'T', unit: 'u', series: days([-3, Number.NaN, Infinity, 2]) }));
  assert.deepEqual(
    children(child(odd, 'g'), 'rect').map((bar) => Number(attribute(bar, 'height'))),
    [0, 0, 0, PLOT.bottom - PLOT.top],
  );
});

test('every text is data: title, unit and dates are escaped, and read back as they were given', () => {
  const series = [{ start: HOSTILE, value: 2 }, ...days([1])];
  const markup = dailyChartSvg({ id: 'x', title: HOSTILE, unit: HOSTILE, series });
  assert.doesNotMatch(markup, /<script|<img|<\/svg>[\s\S]*<\/svg>/);
  const svg = svgOf(markup);
  assert.equal(text(child(svg, 'title')), `${HOSTILE}, ${HOSTILE} to 2026-03-01`);
  assert.equal(text(child(children(child(svg, 'g'), 'rect')[0]!, 'title')), `${HOSTILE}: 2 ${HOSTILE}`);
  assert.ok(labels(svg).includes(HOSTILE), 'a start that is not a date is shown as it came');
  const figure = child(parseMarkup(dailyChartFigure({ id: 'x', title: HOSTILE, unit: HOSTILE, series })), 'figure');
  assert.equal(text(child(figure, 'figcaption')), HOSTILE);
});

test('an id that is not one token is refused: it is the page’s, never data', () => {
  for (const id of ['', 'two words', '1st', 'a"b', 'x><script>']) {
    assert.throws(() => dailyChartSvg({ id, title: 't', unit: 'u', series: [] }), TypeError);
  }
});

test('the figure: a visible caption, the chart, and the table of its numbers, hidden from sight only', () => {
  const figure = child(
    parseMarkup(dailyChartFigure({ id: 'group-sessions', title: 'Sessions per day', unit: 'sessions', series: days(VALUES) })),
    'figure',
  );
  assert.equal(attribute(figure, 'class'), 'chart');
  assert.equal(text(child(figure, 'figcaption')), 'Sessions per day');
  assert.equal(attribute(child(figure, 'svg'), 'aria-labelledby'), 'group-sessions-title');
  const hidden = child(figure, 'div');
  assert.equal(attribute(hidden, 'class'), 'visually-hidden');
  const table = child(hidden, 'table');
  assert.equal(attribute(table, 'id'), 'group-sessions-table');
  assert.equal(children(child(table, 'tbody'), 'tr').length, VALUES.length);
});
