import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { chromium, type Page, type Response } from 'playwright-core';
import { UserGroupClient } from 'user-group-service/client';
import { startCustomerApp } from '../../examples/dashboard/customer-app.js';
import { startDashboardServer } from '../../examples/dashboard/dashboard-server.js';
import { build } from '../helpers/build.js';

/**
 * examples/dashboard in a real browser: Debian's chromium (never a downloaded
 * one) driven by playwright-core, the real service on SQLite, and the two
 * example servers in this process. What is asserted is what chromium shows.
 */

const CHROMIUM = '/usr/bin/chromium';
const BOUND_MS = 60_000;

/** Resolves once check() holds; the verifier learns of revocations by polling, so some things take a while. */
async function waitUntil(what: string, check: () => Promise<boolean>, diagnose: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} ${diagnose()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A page on another origin (another port on localhost) that frames whatever URL it is given: the attacker's. */
async function startFramingPage(): Promise<{ origin: string; pageFor(src: string): string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://localhost').searchParams.get('src') ?? 'about:blank';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><title>Elsewhere</title><h1>Elsewhere</h1><iframe title="framed" src="${src.replace(/"/g, '&quot;')}"></iframe></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageFor: (src) => `${origin}/?src=${encodeURIComponent(src)}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The token's payload with `region` changed, the header and signature kept. */
function tamper(token: string): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as { props: Record<string, unknown> };
  claims.props['region'] = 'us';
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

test('the example dashboard, embedded in the customer app, in chromium', { timeout: 10 * BOUND_MS }, async (t) => {
  // Closed in reverse order (the browser first, the service last), also when a later step of the setup failed.
  const opened: { close(): Promise<unknown> }[] = [];
  t.after(async () => {
    for (const resource of opened.reverse()) await resource.close();
  });
  const open = <T extends { close(): Promise<unknown> }>(resource: T): T => (opened.push(resource), resource);

  const service = open(await build(t, { kind: 'sqlite', apiKey: false }));
  const { key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
  const client = new UserGroupClient({ baseUrl: service.url, apiKey: key });
  const acme = (await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).user_group;
  await client.getOrCreate({ user_group_id: 'globex', name: 'Globex', properties: { region: 'us' } });

  const revocationPollMs = 100;
  const sessionCheckMs = 100;
  const dashboard = open(await startDashboardServer({ serviceUrl: service.url, apiKey: key, revocationPollMs, sessionCheckMs }));
  const app = open(await startCustomerApp({ serviceUrl: service.url, apiKey: key, dashboardUrl: dashboard.url }));
  const elsewhere = open(await startFramingPage());
  const browser = open(await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] }));

  const newPage = async (): Promise<Page> => {
    const page = await browser.newPage();
    page.setDefaultTimeout(BOUND_MS);
    return page;
  };
  const dashboardFrame = (page: Page) => page.frameLocator('iframe[title="Orders dashboard"]');
  /** Opens the customer app as `group` (and `viewer`); returns the page once the dashboard inside it shows its table. */
  const openAs = async (group: string, viewer?: string): Promise<{ page: Page; src: string }> => {
    const page = await newPage();
    const answer = await page.goto(`${app.url}/?group=${group}${viewer === undefined ? '' : `&viewer=${viewer}`}`);
    assert.equal(answer?.status(), 200);
    await dashboardFrame(page).getByRole('table').waitFor();
    return { page, src: (await page.locator('iframe').getAttribute('src'))! };
  };

  await t.test('two groups with different region properties see different rows', async () => {
    const seen = new Map<string, string[]>();
    for (const [group, region] of [
      ['acme', 'eu'],
      ['globex', 'us'],
    ] as const) {
      const { page } = await openAs(group);
      const frame = dashboardFrame(page);
      await frame.getByRole('table', { name: `Orders in region ${region}, oldest first` }).waitFor();
      const regions = await frame.locator('tbody tr td:nth-child(3)').allInnerTexts();
      assert.equal(regions.length, 12, `${group}: ${regions.length} rows`);
      assert.deepEqual(new Set(regions), new Set([region]), `${group} sees rows of ${[...new Set(regions)].join(', ')}`);
      seen.set(group, await frame.locator('tbody tr th').allInnerTexts());
      await page.close();
    }
    const overlap = seen.get('acme')!.filter((id) => seen.get('globex')!.includes(id));
    assert.deepEqual(overlap, [], 'no order is shown to both groups');
  });

  /** The iframe's height, and its document's as laid out inside it (no DOM types here: the expressions run in chromium). */
  const frameHeights = async (page: Page) => {
    const inside = page.frames().find((frame) => frame.parentFrame() === page.mainFrame())!;
    return {
      frame: (await page.evaluate(`document.querySelector('iframe[title="Orders dashboard"]').clientHeight`)) as number,
      content: (await inside.evaluate('Math.ceil(document.documentElement.getBoundingClientRect().height)')) as number,
      scrolled: (await inside.evaluate('document.documentElement.scrollHeight')) as number,
    };
  };
  /** Resolves once the iframe is as tall as its document, nothing in it clipped. */
  const frameFitsContent = async (page: Page) => {
    let last: unknown;
    await waitUntil(
      'the frame to be as tall as its content',
      async () => {
        const heights = await frameHeights(page);
        last = heights;
        return heights.frame === heights.content && heights.scrolled <= heights.frame;
      },
      () => JSON.stringify(last),
    );
  };

  await t.test('the frame is as tall as the dashboard in it, its product filter included (issue 43, item 13)', async () => {
    const { page } = await openAs('acme');
    await frameFitsContent(page);
    const { frame } = await frameHeights(page);
    // Below the table's bottom edge nothing is cut off: the filter and the last row are inside the frame's box.
    const box = await page.locator('iframe[title="Orders dashboard"]').boundingBox();
    const lastRow = await dashboardFrame(page).locator('tbody tr').last().boundingBox();
    const filter = await dashboardFrame(page).getByRole('combobox').boundingBox();
    for (const [what, inner] of [
      ['the last row', lastRow],
      ['the product filter', filter],
    ] as const)
      assert.ok(inner!.y + inner!.height <= box!.y + box!.height, `${what} ends below the frame: ${JSON.stringify({ inner, box, frame })}`);
    t.diagnostic(`the frame is ${frame} px tall (the page's fixed height was 576 px)`);
    await page.close();
  });

  await t.test("two viewers of acme see their sales rep's rows; ending one's sessions ends that one's open dashboard only", async () => {
    const rowsOf = async (page: Page) => ({
      ids: await dashboardFrame(page).locator('tbody tr th').allInnerTexts(),
      reps: await dashboardFrame(page).locator('tbody tr td:nth-child(4)').allInnerTexts(),
    });
    const ana = await openAs('acme', 'ana');
    const ben = await openAs('acme', 'ben');
    const admin = await openAs('acme');
    for (const [viewer, { page }] of [
      ['ana', ana],
      ['ben', ben],
    ] as const) {
      await dashboardFrame(page)
        .getByRole('table', { name: `Orders of sales rep ${viewer} in region eu, oldest first` })
        .waitFor();
      const { reps } = await rowsOf(page);
      assert.equal(reps.length, 4, `${viewer}: ${reps.length} rows`);
      assert.deepEqual(new Set(reps), new Set([viewer]), `${viewer} sees rows of ${[...new Set(reps)].join(', ')}`);
    }
    const [anaRows, benRows, adminRows] = [await rowsOf(ana.page), await rowsOf(ben.page), await rowsOf(admin.page)];
    assert.deepEqual(
      anaRows.ids.filter((id) => benRows.ids.includes(id)),
      [],
      'no order is shown to both viewers',
    );
    // The group's admin, minted without a viewer, sees the region's every order: both viewers' and the rest.
    assert.equal(adminRows.ids.length, 12);
    assert.ok([...anaRows.ids, ...benRows.ids].every((id) => adminRows.ids.includes(id)));

    // Only the app's own pages may end sessions: a POST from anywhere else (no Sec-Fetch-Site, or another site's) is refused.
    for (const headers of [{}, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      const forged = await fetch(`${app.url}/viewers/ana/end-sessions?group=acme`, { method: 'POST', headers });
      assert.equal(forged.status, 403, JSON.stringify(headers));
    }
    await dashboardFrame(ana.page).getByRole('table').waitFor();

    const benChecks: number[] = [];
    ben.page.on(
      'response',
      (response) => void (response.url().startsWith(`${dashboard.url}/session?`) && benChecks.push(response.status())),
    );
    const anaPageUrl = ana.page.url();
    // Offboarding from the app's own page: its backend calls DELETE /api/viewers/ana/sessions, which answers once they ended.
    await admin.page.getByRole('button', { name: 'End ana’s sessions' }).click();
    await admin.page.getByRole('heading', { name: 'Ended ana’s sessions' }).waitFor();
    const endedAt = Date.now();
    // Nobody reloads ana's page: its dashboard learns by itself (the verifier's poll, then the page's own check) and says so in place.
    await dashboardFrame(ana.page).getByRole('heading', { name: 'This session has ended' }).waitFor();
    const tookMs = Date.now() - endedAt;
    t.diagnostic(`ana's open dashboard said the session ended ${tookMs} ms after the end was answered`);
    assert.ok(tookMs < revocationPollMs + sessionCheckMs + 3_000, `${tookMs} ms`);
    // The one cause that happened, not a list of what could have.
    const anaWhy = await dashboardFrame(ana.page).getByRole('status').innerText();
    assert.match(anaWhy, /Every session of its viewer was ended\./);
    assert.doesNotMatch(anaWhy, /rotated|deleted|renamed|on its own/);
    assert.equal(await dashboardFrame(ana.page).getByRole('table').count(), 0);
    assert.equal(ana.page.url(), anaPageUrl, 'the customer page was not reloaded (that would have minted a new session)');

    // Ben's keeps working: his page goes on checking, every check is answered 204, and his rows stay.
    const checksAtEnd = benChecks.length;
    await waitUntil("ben's page to check its session again", async () => benChecks.length >= checksAtEnd + 3);
    assert.deepEqual(new Set(benChecks), new Set([204]));
    await dashboardFrame(ben.page).getByRole('table', { name: 'Orders of sales rep ben in region eu, oldest first' }).waitFor();
    assert.deepEqual(await rowsOf(ben.page), benRows);
    // Ana, opening the app again, gets a new session that works.
    await ana.page.reload();
    await dashboardFrame(ana.page).getByRole('table', { name: 'Orders of sales rep ana in region eu, oldest first' }).waitFor();
    for (const { page } of [ana, ben, admin]) await page.close();
  });

  await t.test(
    'opened under another host name than its sessions allow, the app says where to open it instead of a blanked frame',
    async () => {
      const page = await newPage();
      const elsewhereHost = app.url.replace('//localhost:', '//127.0.0.1:');
      const answer = await page.goto(`${elsewhereHost}/?group=acme`);
      assert.equal(answer?.status(), 421);
      await page.getByRole('heading', { name: `Open this app at ${app.url}` }).waitFor();
      assert.match(await page.getByRole('alert').innerText(), /frame-ancestors/);
      assert.equal(await page.locator('iframe').count(), 0);
      await page.getByRole('link', { name: `${app.url}/?group=acme` }).click();
      await dashboardFrame(page).getByRole('table', { name: 'Orders in region eu, oldest first' }).waitFor();
      await page.close();
    },
  );

  await t.test('a key that may not mint is named as the problem, not "try again later"', async () => {
    const { key: readOnly } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-only' });
    const { key: testing } = await service.services.apiKeys.create({ environment: 'Testing', access: 'embed' });
    const cases = [
      {
        key: readOnly,
        status: 502,
        says: /API key \(UGS_API_KEY\) may not mint embed sessions: a read-only key cannot\. .*read-write or embed key/,
      },
      { key: `ugsk_${'A'.repeat(49)}`, status: 502, says: /does not accept this app's API key \(UGS_API_KEY\)/ },
      { key: testing, status: 404, says: /There is no user group "acme" for this app\. .*Testing environment/ },
    ];
    for (const { key: appKey, status, says } of cases) {
      const other = await startCustomerApp({ serviceUrl: service.url, apiKey: appKey, dashboardUrl: dashboard.url });
      try {
        const answer = await fetch(`${other.url}/?group=acme`);
        const text = (await answer.text()).replaceAll('&#34;', '"').replaceAll('&#39;', "'");
        assert.equal(answer.status, status, text);
        assert.match(text, says);
        assert.doesNotMatch(text, /try again later/i);
      } finally {
        await other.close();
      }
    }
  });

  await t.test('a tampered token is refused with 401, and nothing of the data is shown', async () => {
    const { page, src } = await openAs('acme');
    const url = new URL(src);
    url.searchParams.set('token', tamper(url.searchParams.get('token')!));
    const answer = await page.goto(url.href);
    assert.equal(answer?.status(), 401);
    await page.getByRole('heading', { name: 'This dashboard cannot be shown' }).waitFor();
    assert.equal(await page.getByRole('table').count(), 0);
    assert.match((await answer!.allHeaders())['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    await page.close();
  });

  await t.test('an origin not in org cannot frame the dashboard; one in org can', async () => {
    const page = await newPage();
    const dashboardAnswers: Response[] = [];
    page.on('response', (response) => void (response.url().startsWith(dashboard.url) && dashboardAnswers.push(response)));
    // A session minted by the customer app, for its own origin, framed by another origin.
    const { page: appPage, src } = await openAs('acme');
    await appPage.close();
    await page.goto(elsewhere.pageFor(src));
    await waitUntil('the dashboard to answer the framed request', async () => dashboardAnswers.length > 0);
    const answer = dashboardAnswers[0]!;
    // The dashboard did answer with the rows: it is chromium, obeying frame-ancestors, that keeps them out of the frame.
    assert.equal(answer.status(), 200);
    assert.equal((await answer.allHeaders())['content-security-policy']?.match(/frame-ancestors ([^;]*)/)?.[1], app.url);
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await waitUntil('chromium to settle the blocked frame', async () => frame.url() !== 'about:blank' && frame.url() !== '');
    // What chromium does with a response whose frame-ancestors excludes the parent: its own error page instead.
    assert.equal(frame.url(), 'chrome-error://chromewebdata/');
    assert.equal(await page.frameLocator('iframe').getByRole('table').count(), 0);
    assert.equal(await page.frameLocator('iframe').getByText('Orders in').count(), 0);

    // The same page frames a session minted for its own origin: the block above is the origin's doing, nothing else.
    const own = await client.mintEmbedSession({ user_group_id: 'acme', dashboard: 'orders', origins: [elsewhere.origin] });
    const allowed = new URL('/', dashboard.url);
    allowed.searchParams.set('token', own.token);
    await page.goto(elsewhere.pageFor(allowed.href));
    await page.frameLocator('iframe').getByRole('table', { name: 'Orders in region eu, oldest first' }).waitFor();
    await page.close();
  });

  await t.test('sessions without origins may be framed by nobody; a session for another dashboard is refused', async () => {
    const bare = await client.mintEmbedSession({ user_group_id: 'globex' });
    const answer = await fetch(`${dashboard.url}/?token=${bare.token}`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'(;|$)/);
    const billing = await client.mintEmbedSession({ user_group_id: 'globex', dashboard: 'billing' });
    const refused = await fetch(`${dashboard.url}/?token=${billing.token}`);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /not available for this session/);
  });

  await t.test('after the group token is rotated, the open dashboard shows by itself that the session ended', async () => {
    const { page } = await openAs('acme');
    let frameNavigations = 0;
    page.on('framenavigated', (frame) => void (frame !== page.mainFrame() && frameNavigations++));
    await client.rotateToken(acme.token);
    // The verifier learns of the rotation at its next poll of the revocation feed, the page at its next check; it says so in place.
    await dashboardFrame(page).getByRole('heading', { name: 'This session has ended' }).waitFor();
    const why = await dashboardFrame(page).getByRole('status').innerText();
    assert.match(why, /Its group’s token was rotated, which ends every session of the group\./);
    assert.doesNotMatch(why, /viewer|deleted|renamed|on its own/);
    // The frame follows its content down to the few lines that say so.
    await frameFitsContent(page);
    assert.equal(frameNavigations, 0, 'the frame was not reloaded');
    // Inside the customer's page: the refusal of a revoked session may be framed by the session's origins.
    assert.equal(await dashboardFrame(page).getByRole('table').count(), 0);
    // The customer's page, reloaded, mints a new session under the new token.
    await page.reload();
    await dashboardFrame(page).getByRole('table', { name: 'Orders in region eu, oldest first' }).waitFor();
    await page.close();
  });
});
