import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import { Eta } from 'eta';
import Fastify from 'fastify';
import { chromium } from 'playwright-core';
import { dailyChartFigure } from '../../../src/console/charts/chart-figure.js';
import { sparklineSvg } from '../../../src/console/charts/sparkline.js';
import { registerConsoleAssets } from '../../../src/console/pages/console-assets.js';
import { CONSOLE_HELMET } from '../../../src/console/pages/console-helmet.js';
import { days, HOSTILE } from './parse-markup.js';

/**
 * The charts in Debian's chromium at 375 px wide, in the console's layout, its style sheet and under its CSP
 * (the helmet options console-plugin.ts registers): nothing the CSP refuses, nothing wider than the screen,
 * labels still readable, and the numbers there for a screen reader in the table behind each chart.
 */

const CHROMIUM = '/usr/bin/chromium';
const VIEWS = fileURLToPath(new URL('../../../src/console/views/', import.meta.url));
const WIDTH = 375;
const SESSIONS = Array.from({ length: 30 }, (_, i) => (i * 7) % 23);

function chartsPage(): string {
  const rows = [
    ['acme', SESSIONS],
    ['globex', SESSIONS.map(() => 0)],
    [HOSTILE, [1, 2]],
  ] as const;
  const trends = rows
    .map(
      ([group, values], i) =>
        `<tr><td>${i}</td><td>${sparklineSvg({ id: `trend-${i}`, label: `${group}, sessions per day`, series: days(values) })}</td></tr>`,
    )
    .join('\n');
  const body = [
    dailyChartFigure({ id: 'sessions', title: 'Sessions per day', unit: 'sessions', series: days(SESSIONS) }),
    dailyChartFigure({ id: 'viewers', title: 'Viewers per day', unit: 'viewers', series: days(SESSIONS.map((v) => v % 5)), shape: 'line' }),
    dailyChartFigure({ id: 'empty', title: 'Nothing yet', unit: 'sessions', series: [] }),
    dailyChartFigure({ id: 'hostile', title: HOSTILE, unit: HOSTILE, series: [{ start: HOSTILE, value: 3 }] }),
    `<div class="table-wrap"><table><caption>Top groups</caption><tbody>\n${trends}\n</tbody></table></div>`,
  ].join('\n');
  const eta = new Eta({ views: VIEWS, autoEscape: true });
  return eta.renderString(`<% layout('layout') %><h1>Charts</h1>\n<%~ it.body %>`, { title: 'Charts', session: null, body });
}

test('charts in chromium at 375 px under the console CSP: no violation, they fit, their tables read', { timeout: 60_000 }, async (t) => {
  const app = Fastify();
  await app.register(
    async (scope) => {
      await scope.register(helmet, CONSOLE_HELMET);
      registerConsoleAssets(scope);
      const page = chartsPage();
      scope.get('/charts', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
    },
    { prefix: '/console' },
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(() => app.close());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  t.after(() => browser.close());
  const page = await (await browser.newContext({ viewport: { width: WIDTH, height: 800 } })).newPage();
  page.setDefaultTimeout(10_000);

  const violations: string[] = [];
  page.on('console', (message) => void (/Content Security Policy/i.test(message.text()) && violations.push(message.text())));
  page.on('dialog', (dialog) => void (violations.push(`a dialog opened: ${dialog.message()}`), dialog.dismiss()));
  // Reported by the page itself too: the event sees what the console may not print.
  await page.exposeBinding('reportViolation', (_source, text: string) => void violations.push(text));
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
  });

  const response = await page.goto(`${url}/console/charts`);
  const csp = response?.headers()['content-security-policy'] ?? '';
  assert.match(csp, /(^|;)style-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  await page.getByRole('heading', { name: 'Charts' }).waitFor();

  // Each chart is an image named by its title, the bars coloured by console.css (loaded under style-src 'self').
  const chart = page.getByRole('img', { name: 'Sessions per day, 2026-03-01 to 2026-03-30' });
  await chart.waitFor();
  assert.equal(await page.evaluate("getComputedStyle(document.querySelector('#sessions .chart-bar')).fill"), 'rgb(11, 92, 173)');

  // Nothing wider than the screen, and the page does not scroll sideways.
  for (const svg of await page.locator('svg').all()) {
    const box = await svg.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= WIDTH, `fits: ${JSON.stringify(box)}`);
  }
  assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= WIDTH);
  // The axis labels, scaled down with the chart, are still 10 px tall or more.
  const label = await page.locator('#sessions text.chart-label').first().boundingBox();
  assert.ok(label && label.height >= 10, `label height ${label?.height}`);

  // The table behind the chart: out of sight, but a table with its caption for a screen reader, the series' numbers in it.
  const table = page.getByRole('table', { name: 'Sessions per day' });
  const body = table.locator('tbody');
  assert.deepEqual(
    await body.locator('th').allTextContents(),
    SESSIONS.map((_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`),
  );
  assert.deepEqual(await body.locator('td').allTextContents(), SESSIONS.map(String));
  const hidden = await page.locator('#sessions .visually-hidden').boundingBox();
  assert.ok(hidden && hidden.width <= 1 && hidden.height <= 1, `visually hidden: ${JSON.stringify(hidden)}`);

  // Hostile labels are text on the page, never markup; sparklines are images with their summary for a name.
  await page.getByRole('img', { name: `${HOSTILE}, ${HOSTILE} to ${HOSTILE}` }).waitFor();
  await page.getByText(HOSTILE, { exact: true }).first().waitFor();
  await page
    .getByRole('img', {
      name: `acme, sessions per day: 2026-03-01 to 2026-03-30, ${SESSIONS.reduce((a, b) => a + b)} in all, ${SESSIONS.at(-1)} on the last day`,
    })
    .waitFor();
  await page.getByRole('img', { name: 'Nothing yet: no data' }).waitFor();

  assert.deepEqual(violations, []);
});
