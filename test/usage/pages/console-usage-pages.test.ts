import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleClient, unescapeHtml, type ConsoleAnswer } from '../../helpers/console-client.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { mintToken, renewToken } from '../../helpers/embed-sessions.js';

/** A hostile id and name: markup in each, so a page that forgot to escape either shows it as an element. */
const HOSTILE_ID = 'x"><svg onload=alert(1)>';
const HOSTILE_NAME = '</svg></td><script>alert("name")</script>';

/** The day → value rows of a chart's table (`<id>-table`), read as a screen reader would, in order. */
function chartTable(page: ConsoleAnswer, id: string): [string, number][] {
  const table = new RegExp(`<table id="${id}-table"[\\s\\S]*?</table>`).exec(page.text)?.[0];
  assert.ok(table, `the table of #${id}`);
  return [...table.matchAll(/<tr><th scope="row"><time datetime="(\d{4}-\d{2}-\d{2})">[^<]*<\/time><\/th><td>(\d+)<\/td><\/tr>/g)].map(
    (m) => [m[1]!, Number(m[2])],
  );
}
const total = (rows: [string, number][]) => rows.reduce((sum, [, value]) => sum + value, 0);
const today = () => new Date().toISOString().slice(0, 10);

/** The top groups' rows: user_group_id (as shown), then sessions, viewers, renewals. */
function topGroups(page: ConsoleAnswer): { id: string; href: string; name: string; numbers: number[]; trend: string }[] {
  const table = /<table id="top-groups">[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? '';
  return [
    ...table.matchAll(
      /<tr>\s*<th scope="row"><a href="([^"]*)">([^<]*)<\/a><span class="group-name">([^<]*)<\/span><\/th>([\s\S]*?)<\/tr>/g,
    ),
  ].map((m) => {
    const cells = [...m[4]!.matchAll(/<td>(\d+)<\/td>/g)].map((c) => Number(c[1]));
    const trend = /<title id="trend-\d+-title">([^<]*)<\/title>/.exec(m[4]!)?.[1] ?? '';
    return { href: unescapeHtml(m[1]!), id: unescapeHtml(m[2]!), name: unescapeHtml(m[3]!), numbers: cells, trend: unescapeHtml(trend) };
  });
}

/**
 * Issue 32, the console: the Overview (the environment's sessions per day,
 * the top groups with a trend line each) and a group's usage charts, read
 * from the charts' tables after known mints and renewals; the empty state,
 * another environment's group, a read-only session, hostile names.
 */
describe('operator console: usage', () => {
  const server = buildForSuite();
  let api: ApiClient;
  let browser: ConsoleClient;
  let reader: ConsoleClient;

  const mint = (group: string, viewer?: string, client = api) => mintToken(client, group, viewer);
  const renew = (token: string) => renewToken(api, token);

  before(async () => {
    api = server.api;
    for (const [id, name] of [
      ['acme', 'Acme'],
      ['globex', 'Globex'],
      ['quiet', 'Quiet'],
      [HOSTILE_ID, HOSTILE_NAME],
    ] as const)
      await api.getOrCreate({ user_group_id: id, name });
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
    reader = new ConsoleClient(server.url);
    const readOnly = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-only' });
    assert.equal((await reader.signIn(readOnly.key)).status, 303);
  });

  it('the Overview says nothing was counted yet before any mint, and the nav links it', async () => {
    const page = await browser.get('/console/overview');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.text, /<a href="\/console\/overview">Overview<\/a>/);
    assert.match(page.text, /No embed session was minted or renewed in these 30 days\./);
    assert.doesNotMatch(page.text, /<figure|<table/, 'no empty chart, no empty ranking');
    const groups = await browser.get('/console/groups');
    assert.match(groups.text, /<a href="\/console\/overview">Overview<\/a>/, 'every page links the Overview');
    // A group's charts are there with nothing counted: zeros, every day.
    const quiet = await browser.get('/console/groups/quiet');
    assert.equal(chartTable(quiet, 'usage-sessions').length, 30);
    assert.equal(total(chartTable(quiet, 'usage-sessions')), 0);
  });

  it("after known mints and renewals: the environment's sessions per day and the top groups, most sessions first", async () => {
    const ana = await mint('acme', 'ana');
    await mint('acme', 'bob');
    await mint('acme', 'ana');
    await mint('acme');
    await renew(ana);
    await renew(ana);
    await mint(HOSTILE_ID, 'cy');
    await mint(HOSTILE_ID, 'cy');
    await mint('globex', 'ana');
    await server.services.embedSessions.flushActivity();

    const page = await browser.get('/console/overview');
    assert.equal(page.status, 200);
    const days = chartTable(page, 'overview-sessions');
    assert.equal(days.length, 30, 'every day of the 30, zeros included');
    assert.equal(days.at(-1)![0], today(), "today's last");
    assert.equal(total(days), 7);
    assert.equal(days.at(-1)![1], 7);
    assert.match(unescapeHtml(page.text), /<strong>7<\/strong> sessions minted and <strong>2<\/strong> renewed/);

    const top = topGroups(page);
    assert.deepEqual(
      top.map((g) => [g.id, g.name, g.numbers]),
      [
        ['acme', 'Acme', [4, 2, 2]],
        [HOSTILE_ID, HOSTILE_NAME, [2, 1, 0]],
        ['globex', 'Globex', [1, 1, 0]],
      ],
      'sessions, viewers, renewals; quiet, with none, is not ranked',
    );
    assert.equal(top[0]!.href, '/console/groups/acme');
    assert.equal(top[1]!.href, `/console/groups/${encodeURIComponent(HOSTILE_ID)}`);
    assert.match(top[0]!.trend, /^acme, sessions per day: .* 4 in all, 4 on the last day$/);
    // Each row's link opens that group's page.
    assert.equal((await browser.get(top[1]!.href)).status, 200);
  });

  it('escapes a hostile group id and name on the Overview: only text, never markup', async () => {
    const page = await browser.get('/console/overview');
    assert.doesNotMatch(page.text, /<script>alert|<svg onload/);
    const hostile = topGroups(page).find((g) => g.id === HOSTILE_ID);
    assert.equal(hostile?.name, HOSTILE_NAME, 'the name read back as text from its cell');
    assert.ok(hostile.trend.startsWith(`${HOSTILE_ID}, sessions per day:`), "the trend line's title, text too");
    assert.match(
      page.text,
      /&lt;script&gt;alert\(&quot;name&quot;\)&lt;\/script&gt;|&lt;script&gt;alert\(&#34;name&#34;\)&lt;\/script&gt;/,
    );
    assert.equal((page.text.match(/<script /g) ?? []).length, 2, "the layout's two scripts, and no other");
  });

  it("a group's page: sessions per day and distinct viewers per day over 30 days, near its viewers", async () => {
    const page = await browser.get('/console/groups/acme');
    assert.equal(page.status, 200);
    const sessions = chartTable(page, 'usage-sessions');
    const viewers = chartTable(page, 'usage-viewers');
    assert.equal(sessions.length, 30);
    assert.equal(viewers.length, 30);
    assert.deepEqual(sessions.at(-1), [today(), 4]);
    assert.deepEqual(viewers.at(-1), [today(), 2], 'ana twice and bob: two distinct viewers; the mint without one adds none');
    assert.equal(total(sessions), 4);
    assert.match(page.text, /<strong>4<\/strong> sessions minted and <strong>2<\/strong> renewed/);
    assert.ok(page.text.indexOf('id="usage"') < page.text.indexOf('id="viewers"'), 'the charts come just before the viewers');
    assert.match(page.text, /<figcaption>Sessions per day<\/figcaption>/);
    assert.match(page.text, /<figcaption>Distinct viewers per day<\/figcaption>/);

    const globex = await browser.get('/console/groups/globex');
    assert.deepEqual(chartTable(globex, 'usage-sessions').at(-1), [today(), 1]);
  });

  it('a read-only session sees the same numbers, and no control', async () => {
    const overview = await reader.get('/console/overview');
    assert.equal(overview.status, 200);
    assert.equal(total(chartTable(overview, 'overview-sessions')), 7);
    assert.deepEqual(
      topGroups(overview).map((g) => g.numbers[0]),
      [4, 2, 1],
    );
    assert.deepEqual(
      [...overview.text.matchAll(/<form [^>]*action="([^"]+)"/g)].map((m) => m[1]),
      ['/console/sign-out'],
      'no form but signing out',
    );
    const group = await reader.get('/console/groups/acme');
    assert.equal(total(chartTable(group, 'usage-viewers')), 2);
  });

  it("another environment's group is 404, its usage unseen; its mints are not in this environment's Overview", async () => {
    const testing = await server.client({ environment: 'Testing' });
    await testing.getOrCreate({ user_group_id: 'elsewhere', name: 'Elsewhere' });
    await mint('elsewhere', 'dee', testing);
    await server.services.embedSessions.flushActivity();
    const page = await browser.get('/console/groups/elsewhere');
    assert.equal(page.status, 404);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.doesNotMatch(page.text, /usage-sessions/);
    const overview = await browser.get('/console/overview');
    assert.equal(total(chartTable(overview, 'overview-sessions')), 7);
    assert.ok(!topGroups(overview).some((g) => g.id === 'elsewhere'));
  });
});
