import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chartTableHtml } from '../../../src/console/charts/chart-table.js';
import { attribute, child, children, days, HOSTILE, parseMarkup, text } from './parse-markup.js';

test("the table's numbers are the series', one row a day headed by its date", () => {
  const series = days([0, 3, 14, 12_345]);
  const hidden = child(parseMarkup(chartTableHtml({ id: 'sessions', caption: 'Sessions per day', unit: 'sessions', series })), 'div');
  assert.equal(attribute(hidden, 'class'), 'visually-hidden', 'read by screen readers, kept out of sight');
  const table = child(hidden, 'table');
  assert.equal(attribute(table, 'id'), 'sessions-table');
  assert.equal(text(child(table, 'caption')), 'Sessions per day');
  assert.deepEqual(children(child(child(table, 'thead'), 'tr'), 'th').map(text), ['Day', 'Sessions']);
  const rows = children(child(table, 'tbody'), 'tr');
  assert.deepEqual(
    rows.map((row) => {
      const heading = child(row, 'th');
      assert.equal(attribute(heading, 'scope'), 'row');
      const time = child(heading, 'time');
      return { start: `${attribute(time, 'datetime')}T00:00:00.000Z`, day: text(time), value: Number(text(child(row, 'td'))) };
    }),
    series.map((point) => ({ start: point.start, day: point.start.slice(0, 10), value: point.value })),
  );
});

test('visible on request; an empty series says so in one row', () => {
  const table = child(parseMarkup(chartTableHtml({ id: 't', caption: 'C', unit: 'viewers', series: [], display: 'visible' })), 'table');
  assert.equal(attribute(table, 'class'), 'chart-table');
  const [row] = children(child(table, 'tbody'), 'tr');
  assert.equal(text(child(row!, 'td')), 'No days to show.');
  assert.equal(attribute(child(row!, 'td'), 'colspan'), '2');
});

test('caption, heading and dates are escaped and read back as given', () => {
  const markup = chartTableHtml({ id: 't', caption: HOSTILE, unit: HOSTILE, series: [{ start: HOSTILE, value: 1 }] });
  assert.doesNotMatch(markup, /<script|<img/);
  const table = child(child(parseMarkup(markup), 'div'), 'table');
  assert.equal(text(child(table, 'caption')), HOSTILE);
  const time = child(child(children(child(table, 'tbody'), 'tr')[0]!, 'th'), 'time');
  assert.equal(text(time), HOSTILE);
  assert.equal(attribute(time, 'datetime'), HOSTILE);
});
