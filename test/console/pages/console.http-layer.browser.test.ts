import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { UserGroupClient } from 'user-group-service/client';
import { webhookWorkerFor } from '../../../src/webhooks/delivery/webhook-worker.js';
import { build } from '../../helpers/build.js';
import { consoleBrowser } from '../../helpers/console-browser.js';
import { eventually, startReceiver } from '../../helpers/webhook-receiver.js';

/**
 * The operator console in a real browser: Debian's chromium (never a
 * downloaded one) driven by playwright-core, the real service on the store
 * UGS_TEST_STORE names. Issue 19's scenarios, in order; what is asserted is
 * what chromium shows, and what the API then answers.
 */

/** Another site (localhost, not 127.0.0.1) whose page posts a form to `action` as soon as it loads: the attacker's. */
async function startForgingSite(action: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><title>Win a prize</title><form method="post" action="${action}"><input type="hidden" name="_csrf" value="guessed"></form><script>document.forms[0].submit()</script></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('the operator console in chromium', { timeout: 4 * 60_000 }, async (t) => {
  const opened: { close(): Promise<unknown> }[] = [];
  t.after(async () => {
    for (const resource of opened.reverse()) await resource.close();
  });
  const open = <T extends { close(): Promise<unknown> }>(resource: T): T => (opened.push(resource), resource);

  // Webhooks may target the receiver on 127.0.0.1; a worker delivers as `npm start` would.
  const service = open(await build(t, { webhooks: { allowPrivateTargets: true, pollMs: 20 }, apiKey: false }));
  const worker = webhookWorkerFor(service.services, { config: { ...service.services.webhookDelivery.config, pollMs: 20 } });
  worker.start();
  open({ close: () => worker.stop(5000) });
  const receiver = open(await startReceiver(() => ({ status: 200, body: 'thanks' })));
  const writer = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
  const reader = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-only' });
  const api = new UserGroupClient({ baseUrl: service.url, apiKey: writer.key });
  await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu', tier: 'gold' } });
  await api.getOrCreate({ user_group_id: 'acme-eu', name: 'Acme Europe', parent_user_group_id: 'acme', properties: { region: 'eu' } });
  await api.getOrCreate({ user_group_id: 'globex', name: 'Globex' });
  // Closed in its turn among what this test opened (before the receiver, the worker and the service).
  const chromium = await consoleBrowser({ after: (close) => void open({ close }) });
  /** A page in a fresh browser context (its own cookies), failing the test on any CSP violation it reports. */
  const { newPage, cspViolations } = chromium;
  const signIn = (page: Page, key: string) => chromium.signIn(page, service.url, key);

  const operator = await newPage();
  let oldToken = '';

  await t.test('sign in: a wrong key shows an error and sets nothing, the right one opens the groups', async () => {
    await signIn(operator, 'ugsk_not-a-real-key');
    await operator.getByRole('alert').filter({ hasText: 'That API key is not valid (or was revoked).' }).waitFor();
    assert.deepEqual(await operator.context().cookies(), []);
    // By keyboard alone: the skip link, then the field, then Enter.
    await operator.goto(`${service.url}/console/sign-in`);
    await operator.keyboard.press('Tab');
    assert.equal(await operator.evaluate('document.activeElement.textContent'), 'Skip to content');
    await operator.keyboard.press('Tab');
    assert.equal(await operator.evaluate('document.activeElement.id'), 'api_key');
    await operator.keyboard.type(writer.key);
    await operator.keyboard.press('Enter');
    await operator.getByRole('heading', { name: 'Groups' }).waitFor();
    const [cookie] = await operator.context().cookies();
    assert.equal(cookie?.name, 'ugs_console');
    assert.ok(cookie.httpOnly && cookie.sameSite === 'Strict' && cookie.path === '/console');
    assert.ok(!cookie.value.includes(writer.key));
  });

  await t.test('find a group by prefix (htmx narrows the list as one types) and open its page', async () => {
    await operator.getByLabel('Search by user_group_id prefix').fill('acme-');
    // (Waited for with locators: the CSP rightly refuses waitForFunction's eval.)
    await operator.getByRole('link', { name: 'globex' }).waitFor({ state: 'detached' });
    assert.equal(await operator.locator('#results tbody tr').count(), 1);
    assert.match(operator.url(), /\/console\/groups\?prefix=acme-$/, 'the search is in the address bar, so back and reload keep it');
    await operator.getByRole('link', { name: 'acme-eu' }).click();
    await operator.getByRole('heading', { name: 'Acme Europe' }).waitFor();
    // Its hierarchy: the parent as a link, root first.
    await operator.getByRole('list', { name: 'Ancestors, root first' }).getByRole('link', { name: 'acme' }).waitFor();
    assert.match(await operator.locator('#token').innerText(), /^ugt_••••[0-9A-Za-z]{4}$/);
  });

  await t.test('edit its properties: invalid JSON shows the error beside the field, valid JSON is saved', async () => {
    await operator.getByLabel('Properties (JSON object)').fill('{"region": "us",}');
    await operator.getByRole('button', { name: 'Save' }).click();
    await operator.locator('#properties_error').filter({ hasText: '"properties" is not valid JSON' }).waitFor();
    assert.equal(await operator.getByLabel('Properties (JSON object)').getAttribute('aria-invalid'), 'true');
    await operator.getByLabel('Properties (JSON object)').fill('{"region": "us", "seats": 12}');
    await operator.getByRole('button', { name: 'Save' }).click();
    await operator.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const { user_group: userGroup } = await api.getOrCreate({ user_group_id: 'acme-eu' });
    assert.deepEqual(userGroup.properties, { region: 'us', seats: 12 });
  });

  await t.test('rotate its token after confirming in a dialog; the API then refuses the old token', async () => {
    await operator.getByRole('button', { name: 'Reveal' }).click();
    await operator.getByRole('button', { name: 'Hide' }).waitFor();
    oldToken = await operator.locator('#token').innerText();
    assert.equal(oldToken, (await api.getOrCreate({ user_group_id: 'acme-eu' })).user_group.token);
    await operator.getByRole('button', { name: 'Rotate token' }).click();
    const dialog = operator.getByRole('dialog', { name: /Rotate the token/ });
    await dialog.getByRole('button', { name: 'Rotate' }).click();
    await operator.getByRole('status').filter({ hasText: 'Token rotated' }).waitFor();
    const refused = await fetch(`${service.url}/api/embed-sessions`, {
      method: 'POST',
      headers: { authorization: `Token ${writer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_group_token: oldToken }),
    });
    assert.equal(refused.status, 404, "the old token is no longer any group's");
    assert.notEqual((await api.getOrCreate({ user_group_id: 'acme-eu' })).user_group.token, oldToken);
  });

  await t.test('delete it: the dialog wants the user_group_id typed', async () => {
    await operator.getByRole('button', { name: 'Delete' }).first().click();
    const dialog = operator.getByRole('dialog', { name: /Delete acme-eu/ });
    await dialog.getByLabel('Type the user_group_id to confirm').fill('acme');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await operator.locator('#confirm_error').waitFor();
    const retry = operator.getByRole('dialog', { name: /Delete acme-eu/ });
    await retry.getByLabel('Type the user_group_id to confirm').fill('acme-eu');
    await retry.getByRole('button', { name: 'Delete' }).click();
    await operator.getByRole('status').filter({ hasText: 'Group deleted.' }).waitFor();
    assert.equal(await operator.getByRole('link', { name: 'acme-eu' }).count(), 0);
    const gone = await fetch(`${service.url}/api/user/acme-eu`, { headers: { authorization: `Token ${writer.key}` } });
    assert.equal(gone.status, 404);
  });

  await t.test("webhooks: add one for a receiver, see a group's creation delivered, redeliver it, remove the webhook", async () => {
    await operator.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await operator.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await operator.getByLabel('URL').fill(receiver.url);
    await operator.getByLabel('Description').fill('Cache invalidation');
    await operator.getByRole('button', { name: 'Add webhook' }).click();
    await operator.getByText('it will not be shown again').waitFor();
    const secret = await operator.locator('#secret').innerText();
    assert.match(secret, /^whsec_/);
    await operator.getByRole('link', { name: 'Go to the webhook' }).click();
    await operator.getByRole('heading', { name: /^Webhook wh_/ }).waitFor();
    assert.equal(await operator.getByText(secret).count(), 0, "the secret is not on the webhook's page");
    const id = (await operator.getByRole('heading', { name: /^Webhook wh_/ }).innerText()).replace('Webhook ', '');
    await api.getOrCreate({ user_group_id: 'initech', name: 'Initech' });
    // The receiver answers before the worker records the outcome: wait for the record, then look.
    const reader = { keyId: 'test', environment: 'Customer' as const, access: 'read-only' as const };
    await eventually(async () =>
      (await service.services.webhooks.listDeliveries(reader, id, { limit: 10 })).deliveries.some(
        (d) => d.eventType === 'user_group.created' && d.status === 'succeeded',
      )
        ? true
        : undefined,
    );
    await operator.reload();
    const delivery = operator.locator('article.delivery').filter({ hasText: 'user_group.created' });
    await delivery.getByText('succeeded', { exact: true }).waitFor();
    await delivery.getByRole('cell', { name: '200', exact: true }).waitFor();
    await delivery.getByText('thanks').waitFor();
    await delivery.getByRole('button', { name: 'Redeliver' }).click();
    await operator.getByRole('status').filter({ hasText: 'Redelivery queued' }).waitFor();
    const created = () => receiver.received.filter((r) => JSON.parse(r.body).type === 'user_group.created');
    await eventually(async () => (created().length >= 2 ? true : undefined));
    const [first, second] = created();
    assert.equal(second?.headers['webhook-id'], first?.headers['webhook-id'], 'the same webhook-id');
    await operator.getByRole('button', { name: 'Remove' }).click();
    const dialog = operator.getByRole('dialog', { name: /Remove wh_/ });
    await dialog.getByLabel('Type the webhook id to confirm').fill(id);
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await operator.getByRole('status').filter({ hasText: 'Webhook removed' }).waitFor();
    assert.equal(await operator.getByRole('link', { name: id }).count(), 0);
  });

  await t.test(
    'viewers: a preview as a viewer (a refusal beside the field first), the viewer listed, its sessions ended by typing its id',
    async () => {
      await operator.goto(`${service.url}/console/groups/globex`);
      await operator.getByLabel('Viewer id (optional)').fill('ana@globex');
      await operator.getByLabel('Viewer attributes (JSON object, optional)').fill('{"sales_rep": "ana",}');
      await operator.getByRole('button', { name: 'Preview embed' }).click();
      // htmx swaps the refused form in (console.js lets a 400 through for it): the error beside the field, the text kept.
      await operator.locator('#attributes_error').filter({ hasText: '"viewer.attributes" is not valid JSON' }).waitFor();
      assert.equal(await operator.getByLabel('Viewer attributes (JSON object, optional)').inputValue(), '{"sales_rep": "ana",}');
      await operator.getByLabel('Viewer attributes (JSON object, optional)').fill('{"sales_rep": "ana"}');
      await operator.getByRole('button', { name: 'Preview embed' }).click();
      const claims = JSON.parse(await operator.locator('pre.claims').innerText());
      assert.deepEqual([claims.vid, claims.props], ['ana@globex', { sales_rep: 'ana' }]);
      await service.services.embedSessions.flushActivity();
      await operator.reload();
      const row = operator.getByRole('row').filter({ hasText: 'ana@globex' });
      await row.getByRole('cell', { name: '1', exact: true }).waitFor();
      await row.getByRole('button', { name: 'End sessions of ana@globex' }).click();
      const dialog = operator.getByRole('dialog', { name: /End the sessions of ana@globex/ });
      await dialog.getByLabel('Type the viewer id to confirm').fill('ana');
      await dialog.getByRole('button', { name: 'End sessions' }).click();
      await operator.getByRole('alert').filter({ hasText: 'Type the viewer id, "ana@globex", exactly' }).waitFor();
      const retry = operator.getByRole('dialog', { name: /End the sessions of ana@globex/ });
      await retry.getByLabel('Type the viewer id to confirm').fill('ana@globex');
      await retry.getByRole('button', { name: 'End sessions' }).click();
      await operator.getByRole('status').filter({ hasText: 'The sessions of viewer "ana@globex" ended' }).waitFor();
      const audit = await service.services.audit.listAuditRecords({ limit: 10_000 });
      assert.equal(audit.filter((r) => r.action === 'viewer.sessions_revoked' && r.viewerId === 'ana@globex').length, 1);
    },
  );

  await t.test(
    "usage: after known mints, the Overview's chart and top groups and a group's charts read back from their tables",
    async () => {
      // Three sessions of acme (two viewers), and the one of globex the preview above minted.
      for (const viewer of ['ana@acme', 'bo@acme', 'ana@acme'])
        await api.mintEmbedSession({ user_group_id: 'acme', viewer: { id: viewer } });
      await service.services.embedSessions.flushActivity();
      const today = new Date().toISOString().slice(0, 10);
      /** The rows of a chart's table (visually hidden, found by its role and caption as a screen reader finds it): [day, value]. */
      const chartRows = async (figure: string, caption: string) => {
        const body = operator.locator(`#${figure}`).getByRole('table', { name: caption }).locator('tbody');
        const days = await body.locator('th').allTextContents();
        const values = await body.locator('td').allTextContents();
        return days.map((day, i) => [day, Number(values[i])] as const);
      };
      await operator.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
      await operator.getByRole('heading', { name: 'Overview' }).waitFor();
      await operator.getByRole('img', { name: /^Sessions per day, / }).waitFor();
      const days = await chartRows('overview-sessions', 'Sessions per day');
      assert.equal(days.length, 30);
      assert.deepEqual(days.at(-1), [today, 4]);
      const top = operator.getByRole('table', { name: /^Top groups/ });
      const row = (id: string) => top.getByRole('row').filter({ has: operator.getByRole('link', { name: id, exact: true }) });
      const sessionsAndViewers = async (id: string) => (await row(id).locator('td').allTextContents()).slice(1, 3);
      assert.deepEqual(await sessionsAndViewers('acme'), ['3', '2'], 'sessions, viewers');
      assert.deepEqual(await sessionsAndViewers('globex'), ['1', '1']);
      await row('acme')
        .getByRole('img', { name: /^acme, sessions per day: .* 3 in all, 3 on the last day$/ })
        .waitFor();
      await row('acme').getByRole('link', { name: 'acme', exact: true }).click();
      await operator.getByRole('heading', { name: 'Acme', exact: true }).waitFor();
      assert.deepEqual((await chartRows('usage-sessions', 'Sessions per day')).at(-1), [today, 3]);
      assert.deepEqual((await chartRows('usage-viewers', 'Distinct viewers per day')).at(-1), [today, 2]);
    },
  );

  await t.test('a read-only session, 375 px wide, sees everything and no write control', async () => {
    const page = await newPage({ width: 375, height: 812 });
    await signIn(page, reader.key);
    await page.getByRole('link', { name: 'acme', exact: true }).click();
    await page.getByRole('heading', { name: 'Acme' }).waitFor();
    await page.getByText('This session is read-only').waitFor();
    for (const name of ['Save', 'Rotate token', 'Delete', 'Preview embed'])
      assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    assert.equal(await page.locator('textarea').count(), 0);
    await page.getByRole('button', { name: 'Reveal' }).waitFor();
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 375'), 'no sideways scrolling at 375 px');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add webhook' }).count(), 0);
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 375'), 'no sideways scrolling on Webhooks at 375 px');
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Top groups' }).waitFor();
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 375'), 'no sideways scrolling on the Overview at 375 px');
    await page.context().close();
  });

  await t.test('sign out ends the session: the console asks to sign in again', async () => {
    await operator.getByRole('button', { name: 'Sign out' }).click();
    await operator.getByRole('button', { name: 'Sign in' }).waitFor();
    await operator.goto(`${service.url}/console/groups`);
    await operator.getByLabel('API key').waitFor();
  });

  await t.test('an expired session sends the browser back to sign in', async () => {
    await signIn(operator, writer.key);
    await operator.getByRole('heading', { name: 'Groups' }).waitFor();
    const realNow = service.services.consoleSessions.now;
    service.services.consoleSessions.now = () => new Date(Date.now() + 31 * 60_000);
    try {
      await operator.reload();
      await operator.getByText('Your session has ended. Sign in again.').waitFor();
      await operator.getByLabel('API key').waitFor();
    } finally {
      service.services.consoleSessions.now = realNow;
    }
  });

  await t.test('a forged cross-site POST is refused and changes nothing', async () => {
    await signIn(operator, writer.key);
    await operator.getByRole('heading', { name: 'Groups' }).waitFor();
    const before = (await api.getOrCreate({ user_group_id: 'globex' })).user_group.token;
    const forger = open(await startForgingSite(`${service.url}/console/groups/globex/rotate`));
    const answer = operator.waitForResponse((response) => response.url().endsWith('/console/groups/globex/rotate'));
    await operator.goto(forger.url);
    assert.equal((await answer).status(), 403);
    assert.equal((await api.getOrCreate({ user_group_id: 'globex' })).user_group.token, before);
  });

  assert.deepEqual(cspViolations, [], 'no Content Security Policy violation on any page');
});
