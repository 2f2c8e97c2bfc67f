import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { build } from '../../helpers/build.js';
import { consoleBrowser } from '../../helpers/console-browser.js';

const WRITER = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };
const DASHBOARD = { keyId: 'test', environment: 'Customer' as const, access: 'dashboard' as const };
const FIRST_PASSWORD = 'first-Pa55word-never-shown';
const SECOND_PASSWORD = 'second-Pa55word-never-shown';

/**
 * The data source pages in chromium (issue 39): an operator adds a data source, sees it listed, changes its password
 * (which no page ever holds: every page's HTML is read for it), checks it, follows a group's resolved mapping to it
 * (an unresolved value flagged beside), is refused its removal while a group maps to it and then forces it; a
 * read-only key sees the same pages without a form. What the service then holds is read back from it.
 */
test('data sources in the operator console, in chromium', { timeout: 60_000 }, async (t) => {
  // Before the service, so chromium closes first (t.after runs in the order registered).
  const chromium = await consoleBrowser(t);
  const service = await build(t, { apiKey: false });
  const writer = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
  const reader = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-only' });
  await service.services.userGroups.getOrCreate(WRITER, { userGroupId: 'acme', name: 'Acme', mapping: { '40': 'warehouse' } });
  await service.services.userGroups.getOrCreate(WRITER, {
    userGroupId: 'acme-eu',
    name: 'Acme Europe',
    parentUserGroupId: 'acme',
    mapping: { '41': 'not-added' },
  });

  /** Every page's HTML as chromium holds it, read at each step: no password may be in any. */
  const contents: string[] = [];
  const look = async (page: Page) => void contents.push(await page.content());
  const operator = await chromium.newPage();
  await chromium.signIn(operator, service.url, writer.key);
  await operator.getByRole('heading', { name: 'Groups' }).waitFor();

  await t.test('add a data source from the list page and see it listed', async () => {
    await operator.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Data sources' }).click();
    await operator.getByRole('heading', { name: 'Data sources', exact: true }).waitFor();
    await operator.getByLabel('Id', { exact: true }).fill('warehouse');
    await operator.getByLabel('Name', { exact: true }).fill('Warehouse');
    await operator.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    // Nothing listens on port 9: a check fails at once.
    await operator.getByLabel('Port', { exact: true }).fill('9');
    await operator.getByLabel('Database', { exact: true }).fill('acme');
    await operator.getByLabel('User', { exact: true }).fill('dashboards');
    await operator.getByLabel('Password', { exact: true }).fill(FIRST_PASSWORD);
    await operator.getByRole('button', { name: 'Add data source' }).click();
    await operator.getByRole('status').filter({ hasText: 'Data source added.' }).waitFor();
    await operator.getByRole('heading', { name: 'Data source warehouse' }).waitFor();
    assert.equal(await operator.locator('#password-set').innerText(), 'yes');
    await look(operator);
    await operator.getByRole('link', { name: 'Data sources', exact: true }).first().click();
    const row = operator.getByRole('row').filter({ has: operator.getByRole('link', { name: 'warehouse' }) });
    await row.getByRole('cell', { name: '127.0.0.1:9' }).waitFor();
    await look(operator);
  });

  await t.test('change its password: the field is empty, the new password is saved, and neither is on the page', async () => {
    await operator.getByRole('link', { name: 'warehouse' }).click();
    assert.equal(await operator.getByLabel('New password').inputValue(), '', 'write-only: never filled in');
    await operator.getByLabel('New password').fill(SECOND_PASSWORD);
    await operator.getByRole('button', { name: 'Save' }).click();
    await operator.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal(await operator.getByLabel('New password').inputValue(), '');
    await look(operator);
    const { connection } = await service.services.dataSources.credentials(DASHBOARD, 'warehouse');
    assert.equal(connection.password, SECOND_PASSWORD);
  });

  await t.test("check its connection: the outcome's categories, or why the check could not run", async () => {
    await operator.getByRole('button', { name: 'Check connection' }).click();
    await operator.locator('#check-result, #check_error').first().waitFor();
    if ((await operator.locator('#check-result').count()) > 0)
      await operator.locator('#check-result').getByText('connection_refused', { exact: false }).waitFor();
    else assert.match(await operator.locator('#check_error').innerText(), /^The check could not run: /);
    await look(operator);
  });

  await t.test("a group's resolved mapping: the inherited value linked to the data source, its own unresolved value flagged", async () => {
    await operator.goto(`${service.url}/console/groups/acme-eu`);
    const mapping = operator.getByRole('table', { name: 'Resolved mapping of acme-eu, by schema' });
    const inherited = mapping.getByRole('row').filter({ hasText: '"warehouse"' });
    await inherited.getByRole('link', { name: 'acme', exact: true }).waitFor();
    const unresolved = mapping.getByRole('row').filter({ hasText: '"not-added"' });
    await unresolved.getByText('unresolved', { exact: true }).waitFor();
    assert.match(await unresolved.innerText(), /^41\s+"not-added"\s+own\s+unresolved/);
    await look(operator);
    await inherited.getByRole('link', { name: 'Warehouse' }).click();
    await operator.getByRole('heading', { name: 'Data source warehouse' }).waitFor();
    await operator.getByRole('list', { name: 'Groups whose own mapping names warehouse' }).getByRole('link', { name: 'acme' }).waitFor();
  });

  await t.test('remove it: refused while acme maps to it, then forced', async () => {
    await operator.getByRole('button', { name: 'Remove' }).click();
    const dialog = operator.getByRole('dialog', { name: 'Remove warehouse?' });
    await dialog.getByLabel('Type the data source id to confirm').fill('warehouse');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    const again = operator.getByRole('dialog', { name: 'Remove warehouse?' });
    await again.getByRole('alert').filter({ hasText: '1 group maps a schema to data source "warehouse"' }).waitFor();
    await service.services.dataSources.get(WRITER, 'warehouse');
    await look(operator);
    await again.getByLabel('Type the data source id to confirm').fill('warehouse');
    await again.getByLabel('Remove it although groups map to it').check();
    await again.getByRole('button', { name: 'Remove' }).click();
    await operator.getByRole('status').filter({ hasText: 'Data source removed.' }).waitFor();
    assert.equal(await operator.getByRole('link', { name: 'warehouse' }).count(), 0);
    await assert.rejects(service.services.dataSources.get(WRITER, 'warehouse'), { code: 'not_found' });
    await look(operator);
  });

  await t.test('a read-only key sees the data sources and their pages, and no form', async () => {
    await service.services.dataSources.create(WRITER, {
      id: 'analytics',
      name: 'Analytics',
      kind: 'postgresql',
      connection: { host: 'db.internal.example', database: 'analytics', user: 'reader', password: FIRST_PASSWORD },
    });
    const page = await chromium.newPage({ width: 375, height: 812 });
    await chromium.signIn(page, service.url, reader.key);
    await page.getByRole('link', { name: 'Data sources' }).click();
    await page.getByText('This session is read-only').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add data source' }).count(), 0);
    await look(page);
    await page.getByRole('link', { name: 'analytics' }).click();
    await page.getByRole('heading', { name: 'Data source analytics' }).waitFor();
    assert.equal(await page.locator('#password-set').innerText(), 'yes');
    for (const name of ['Check connection', 'Save', 'Remove']) assert.equal(await page.getByRole('button', { name }).count(), 0, name);
    assert.equal(await page.locator('form[method="post"]').count(), 1, 'only Sign out');
    assert.equal(await page.locator('input[type="password"]').count(), 0);
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 375'), 'no sideways scrolling at 375 px');
    await look(page);
    await page.context().close();
  });

  for (const html of contents)
    for (const password of [FIRST_PASSWORD, SECOND_PASSWORD]) assert.ok(!html.includes(password), 'a password in a page');
  assert.equal(contents.length, 9);
  assert.deepEqual(chromium.cspViolations, [], 'no Content Security Policy violation on any page');
});
