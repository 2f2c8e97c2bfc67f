import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SPARK, sparklineSvg } from '../../../src/console/charts/sparkline.js';
import { attribute, child, children, days, HOSTILE, parseMarkup, text, type Element } from './parse-markup.js';

const svgOf = (markup: string): Element => child(parseMarkup(markup), 'svg');
const pointsOf = (svg: Element): number[][] =>
  attribute(child(svg, 'polyline'), 'points')
    .split(' ')
    .map((pair) => pair.split(',').map(Number));

test('a trend line: role img, its title sums it up, its desc has every day', () => {
  const svg = svgOf(sparklineSvg({ id: 'trend-0', label: 'acme, sessions per day', series: days([1, 4, 0, 8]) }));
  assert.equal(attribute(svg, 'role'), 'img');
  assert.equal(attribute(svg, 'class'), 'sparkline');
  assert.equal(attribute(svg, 'aria-labelledby'), 'trend-0-title');
  assert.equal(attribute(svg, 'aria-describedby'), 'trend-0-desc');
  assert.equal(text(child(svg, 'title')), 'acme, sessions per day: 2026-03-01 to 2026-03-04, 13 in all, 8 on the last day');
  assert.equal(text(child(svg, 'desc')), '2026-03-01: 1, 2026-03-02: 4, 2026-03-03: 0, 2026-03-04: 8');
});

test('its points: evenly spread across the width, heights proportional to the values', () => {
  const values = [1, 4, 0, 8, 10];
  const points = pointsOf(svgOf(sparklineSvg({ id: 's', label: 'l', series: days(values) })));
  const span = SPARK.height - 2 * SPARK.inset;
  assert.deepEqual(
    points.map(([x]) => x),
    [0, 25, 50, 75, 100],
  );
  points.forEach(([, y], i) => assert.ok(Math.abs(SPARK.height - SPARK.inset - y! - (values[i]! / 10) * span) < 0.01));
});

test('empty, one day, all zero', () => {
  const empty = svgOf(sparklineSvg({ id: 's', label: 'globex', series: [] }));
  assert.equal(text(child(empty, 'title')), 'globex: no data');
  assert.equal(children(empty, 'polyline').length, 0);
  assert.deepEqual(pointsOf(svgOf(sparklineSvg({ id: 's', label: 'l', series: days([5]) }))), [
    [0, SPARK.inset],
    [SPARK.width, SPARK.inset],
  ]);
  const zero = svgOf(sparklineSvg({ id: 's', label: 'l', series: days([0, 0]) }));
  assert.deepEqual(
    pointsOf(zero).map(([, y]) => y),
    [SPARK.height - SPARK.inset, SPARK.height - SPARK.inset],
  );
  assert.equal(text(child(zero, 'title')), 'l: 2026-03-01 to 2026-03-02, 0 in all, 0 on the last day');
});

test('label and dates are escaped and read back as given', () => {
  const markup = sparklineSvg({ id: 's', label: HOSTILE, series: [{ start: HOSTILE, value: 2 }] });
  assert.doesNotMatch(markup, /<script|<img/);
  const svg = svgOf(markup);
  assert.equal(text(child(svg, 'title')), `${HOSTILE}: ${HOSTILE} to ${HOSTILE}, 2 in all, 2 on the last day`);
  assert.equal(text(child(svg, 'desc')), `${HOSTILE}: 2`);
});
