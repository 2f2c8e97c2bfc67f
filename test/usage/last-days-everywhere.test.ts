import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
// Through the package's own export, as a user imports it.
import { UserGroupClient, type GroupUsageTotals, type UsageBucket } from 'user-group-service/client';
import type { Principal } from '../../src/kernel/principal.js';
import { USAGE_LIMITS } from '../../src/usage/usage.js';
import { buildForSuite } from '../helpers/build.js';
import { ConsoleClient, unescapeHtml, type ConsoleAnswer } from '../helpers/console-client.js';
import { Sandbox } from '../cli/cli-support.js';

const WRITER: Principal = { keyId: 'test', environment: 'Customer', access: 'read-write' };
const DAYS = USAGE_LIMITS.rangeDefaultDays;

/** The day → sessions rows of a console chart's table (`<id>-table`), in order. */
function chartRows(page: ConsoleAnswer, id: string): [string, number][] {
  const table = new RegExp(`<table id="${id}-table"[\\s\\S]*?</table>`).exec(page.text)?.[0];
  assert.ok(table, `the table of #${id}`);
  return [...table.matchAll(/<tr><th scope="row"><time datetime="(\d{4}-\d{2}-\d{2})">[^<]*<\/time><\/th><td>(\d+)<\/td><\/tr>/g)].map(
    (m) => [m[1]!, Number(m[2])],
  );
}

/** The Overview's ranking: each group's id and its sessions, viewers and renewals, as shown. */
function overviewRanking(page: ConsoleAnswer): [string, number[]][] {
  const table = /<table id="top-groups">[\s\S]*?<\/table>/.exec(page.text)?.[0] ?? '';
  return [...table.matchAll(/<tr>\s*<th scope="row"><a href="[^"]*">([^<]*)<\/a>[\s\S]*?<\/th>([\s\S]*?)<\/tr>/g)].map((m) => [
    unescapeHtml(m[1]!),
    [...m[2]!.matchAll(/<td>(\d+)<\/td>/g)].map((c) => Number(c[1])),
  ]);
}

const utcDay = () => new Date().toISOString().slice(0, 10);

/**
 * Issue 43, item 10: "the last 30 days" is one range, lastDays in src/usage/usage.ts, whether the API's default
 * (GET /api/user_groups/{id}/usage, GET /api/usage), the console's charts and Overview or `ugs usage` reads it:
 * the same 30 UTC days, today's last, and the same counts in them.
 */
describe('the last 30 days: the same days in the API, the console and the CLI', () => {
  const sandbox = new Sandbox();
  const dir = sandbox.dir('ugs-last-days');
  const env = { UGS_SECRET: randomBytes(32).toString('hex') };
  // The CLI beside a running server, on one SQLite store.
  const server = buildForSuite({ dataDir: dir, secret: env.UGS_SECRET, kind: 'sqlite' });
  const ugs = async (args: string[]) => {
    const result = await sandbox.ugs(dir, args, env);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as unknown;
  };
  let client: UserGroupClient;
  let console: ConsoleClient;

  before(async () => {
    client = new UserGroupClient({ baseUrl: server.url, apiKey: server.api.key!, retries: 0 });
    console = new ConsoleClient(server.url);
    assert.equal((await console.signIn(server.api.key!)).status, 303);
    for (const [id, name] of [
      ['acme', 'Acme'],
      ['globex', 'Globex'],
    ])
      await server.services.userGroups.getOrCreate(WRITER, { userGroupId: id!, name: name! });
    for (const [group, viewer] of [
      ['acme', 'ana'],
      ['acme', 'bo'],
      ['acme', 'ana'],
      ['globex', 'cy'],
    ])
      await server.services.embedSessions.mint(WRITER, { userGroupId: group!, viewer: { id: viewer! } });
    await server.services.embedSessions.flushActivity();
  });

  after(async () => {
    await sandbox.cleanup();
  });

  it('counts 30 daily buckets, today last, with the same counts, and ranks over the same days', async () => {
    // Read again if UTC midnight passed while reading: each surface reads its own clock.
    const readAll = async () => {
      const day = utcDay();
      return {
        day,
        api: await client.groupUsage('acme'),
        apiHours: await client.groupUsage('acme', { granularity: 'hour' }),
        apiTop: await client.topUsage(),
        group: chartRows(await console.get('/console/groups/acme'), 'usage-sessions'),
        overview: await console.get('/console/overview'),
        cli: (await ugs(['usage', '--group', 'acme', '--json'])) as UsageBucket[],
        cliTop: (await ugs(['usage', '--json'])) as GroupUsageTotals[],
      };
    };
    let read = await readAll();
    while (utcDay() !== read.day) read = await readAll();
    const { day, api, apiHours, apiTop, group, overview, cli, cliTop } = read;

    assert.equal(api.length, DAYS, 'the API: 30 daily buckets by default');
    assert.equal(api.at(-1)!.start.slice(0, 10), day, "today's last");
    assert.equal(api.at(-1)!.sessions, 3);
    const days = api.map((bucket) => bucket.start.slice(0, 10));
    assert.deepEqual(
      group.map(([date]) => date),
      days,
      "the console's group chart: the same days",
    );
    assert.deepEqual(
      group.map(([, sessions]) => sessions),
      api.map((bucket) => bucket.sessions),
      'and the same counts',
    );
    assert.deepEqual(
      chartRows(overview, 'overview-sessions').map(([date]) => date),
      days,
      "the console's Overview: the same days",
    );
    assert.deepEqual(cli, api, '`ugs usage --group`: the same buckets');

    assert.equal(apiHours[0]!.start, api[0]!.start, 'per hour, the same first day');
    assert.equal(
      apiHours.reduce((sum, bucket) => sum + bucket.sessions, 0),
      3,
    );
    assert.equal(apiTop.from, api[0]!.start, 'the ranking starts on the same first day');
    const ranked = apiTop.groups.map((g) => [g.user_group_id, [g.sessions, g.viewers, g.renewals]]);
    assert.deepEqual(ranked, [
      ['acme', [3, 2, 0]],
      ['globex', [1, 1, 0]],
    ]);
    assert.deepEqual(overviewRanking(overview), ranked, "the Overview's ranking: the same totals");
    assert.deepEqual(cliTop, apiTop.groups, '`ugs usage`: the same ranking, field for field');
  });
});
