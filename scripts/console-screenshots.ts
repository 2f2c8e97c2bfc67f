import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { defaultConfig } from '../src/platform/config.js';
import { createLogger } from '../src/platform/http/logger.js';
import { startServing } from '../src/app/serving.js';
import { openCore } from '../src/app/core.js';
import type { Principal } from '../src/kernel/principal.js';

/**
 * `npm run console:screenshots`: the operator console's main pages as PNGs in
 * docs/console/, taken with Debian's chromium from a throwaway service on a
 * temp SQLite store filled with a few example groups and data sources, and webhooks delivering
 * to a receiver on 127.0.0.1. docs/console.md shows them.
 */
const OUT = new URL('../../docs/console/', import.meta.url);
const CHROMIUM = '/usr/bin/chromium';

const dataDir = mkdtempSync(join(tmpdir(), 'ugs-console-shots-'));
// Private targets allowed: the example receiver is on 127.0.0.1.
const defaults = defaultConfig();
const services = await openCore({
  ...defaults,
  dataDir,
  keyCacheTtlMs: 0,
  webhooks: { ...defaults.webhooks, allowPrivateTargets: true, pollMs: 20 },
});
const serving = await startServing(services, { ...defaults, port: 0, host: '127.0.0.1', logger: createLogger('silent') });
const { url } = serving;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/user-groups`;
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const writer = await services.apiKeys.create({ environment: 'Customer', access: 'read-write', name: 'operator' });
  const reader = await services.apiKeys.create({ environment: 'Customer', access: 'read-only', name: 'support' });
  const origin = { ip: '192.0.2.10' };
  const principal = { keyId: writer.record.id, environment: 'Customer' as const, access: 'read-write' as const };
  // One webhook that works, one whose receiver refuses connections (port 9, discard: nothing listens): failing since its first attempt.
  const hook = await services.webhooks.create(principal, { url: receiverUrl, description: 'Dashboard cache invalidation' }, origin);
  const failing = await services.webhooks.create(
    principal,
    { url: 'http://127.0.0.1:9/audit', events: ['user_group.deleted', 'api_key.revoked'], description: 'Audit pipeline' },
    origin,
  );
  await services.userGroups.getOrCreate(
    principal,
    { userGroupId: 'acme', name: 'Acme Corporation', mapping: { '40': 'warehouse-eu' }, properties: { region: 'eu', tier: 'gold' } },
    origin,
  );
  await services.userGroups.getOrCreate(
    principal,
    { userGroupId: 'acme-france', name: 'Acme France', parentUserGroupId: 'acme', properties: { country: 'FR' } },
    origin,
  );
  await services.userGroups.getOrCreate(
    principal,
    { userGroupId: 'acme-germany', name: 'Acme Germany', parentUserGroupId: 'acme', properties: { country: 'DE' } },
    origin,
  );
  for (const [id, name] of [
    ['globex', 'Globex'],
    ['initech', 'Initech'],
    ['umbrella', 'Umbrella Health'],
    ['hooli', 'Hooli'],
  ] as const) {
    await services.userGroups.getOrCreate(principal, { userGroupId: id, name, properties: { region: 'us' } }, origin);
  }
  await services.userGroups.update(principal, { userGroupId: 'acme', properties: { region: 'eu', tier: 'platinum' } }, origin);
  // The data source acme's mapping names (Acme France and Acme Germany inherit it), another one, and a value of Acme
  // Germany's own that names none: unresolved.
  await services.dataSources.create(
    principal,
    {
      id: 'warehouse-eu',
      name: 'Warehouse EU',
      kind: 'postgresql',
      connection: {
        host: 'warehouse-eu.db.internal',
        database: 'analytics',
        user: 'dashboards',
        password: 'example',
        ssl: { mode: 'verify-full' },
      },
    },
    origin,
  );
  await services.dataSources.create(
    principal,
    { id: 'shared-us', name: 'Shared US', kind: 'postgresql', connection: { host: '10.0.4.12', database: 'shared', user: 'dashboards' } },
    origin,
  );
  await services.userGroups.update(principal, { userGroupId: 'acme-germany', mapping: { '41': 'reports-de' } }, origin);
  await seedUsage(principal);
  // Viewers of Acme France, as its dashboards' sessions named them (issue 29), counted and flushed at once.
  for (const [viewer, sessions] of [
    ['marie@acme.example', 3],
    ['lucas@acme.example', 1],
  ] as const) {
    for (let i = 0; i < sessions; i++)
      await services.embedSessions.mint(principal, {
        userGroupId: 'acme-france',
        viewer: { id: viewer, attributes: { sales_rep: viewer } },
      });
  }
  await services.embedSessions.flushActivity();

  mkdirSync(OUT, { recursive: true });
  const shot = async (page: Page, name: string) => {
    await page.screenshot({ path: new URL(name, OUT).pathname, fullPage: true });
    console.error(`docs/console/${name}`);
  };
  const session = async (viewport = { width: 1200, height: 800 }) => {
    const page = await (await browser.newContext({ viewport })).newPage();
    await page.goto(`${url}/console/sign-in`);
    return page;
  };

  const page = await session();
  await page.getByLabel('API key').fill('ugsk_wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  await shot(page, 'sign-in-error.png');
  await page.getByLabel('API key').fill(writer.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Groups' }).waitFor();
  await shot(page, 'groups.png');
  await page.goto(`${url}/console/groups/acme-france`);
  await shot(page, 'group.png');
  await page.getByLabel('Properties (JSON object)').fill('{"country": "FR",}');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#properties_error').waitFor();
  await shot(page, 'group-invalid-json.png');
  await page.goto(`${url}/console/groups/acme-france`);
  await page.getByRole('button', { name: 'Preview embed' }).click();
  await page.locator('#preview pre').waitFor();
  await page.locator('#preview').scrollIntoViewIfNeeded();
  await shot(page, 'group-preview-embed.png');
  await page.getByRole('button', { name: 'Rotate token' }).click();
  await page.getByRole('dialog').waitFor();
  await page.screenshot({ path: new URL('rotate-dialog.png', OUT).pathname });
  console.error('docs/console/rotate-dialog.png');
  await page.goto(`${url}/console/groups/acme-france`);
  await page.locator('#usage').screenshot({ path: new URL('group-usage.png', OUT).pathname });
  console.error('docs/console/group-usage.png');
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Overview' }).click();
  await page.getByRole('heading', { name: 'Top groups' }).waitFor();
  await shot(page, 'overview.png');
  await page.goto(`${url}/console/activity`);
  await shot(page, 'activity.png');
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Data sources' }).click();
  await page.getByRole('heading', { name: 'Data sources', exact: true }).waitFor();
  await shot(page, 'data-sources.png');
  await page.goto(`${url}/console/data-sources/warehouse-eu`);
  await shot(page, 'data-source.png');
  await page.goto(`${url}/console/groups/acme-germany`);
  await page.locator('#resolved-mapping').screenshot({ path: new URL('group-resolved-mapping.png', OUT).pathname });
  console.error('docs/console/group-resolved-mapping.png');
  // The deliveries of the groups created above, recorded: succeeded on one webhook; a failed attempt on the other after a deletion.
  await services.userGroups.delete(principal, 'hooli', origin);
  const looker = { ...principal, access: 'read-only' as const };
  const recorded = async () =>
    (await services.webhooks.listDeliveries(looker, hook.webhook.id, { limit: 50 })).deliveries.filter((d) => d.status === 'succeeded')
      .length >= 8 && (await services.webhooks.get(looker, failing.webhook.id)).failingSince !== null;
  for (let waited = 0; !(await recorded()); waited += 50) {
    if (waited > 30_000) throw new Error('the example deliveries were not recorded within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await page.goto(`${url}/console/webhooks`);
  await shot(page, 'webhooks.png');
  await page.goto(`${url}/console/webhooks/${hook.webhook.id}`);
  await shot(page, 'webhook-deliveries.png');
  await page.goto(`${url}/console/webhooks/${failing.webhook.id}`);
  await shot(page, 'webhook-failing.png');

  const phone = await session({ width: 375, height: 812 });
  await phone.getByLabel('API key').fill(reader.key);
  await phone.getByRole('button', { name: 'Sign in' }).click();
  await phone.getByRole('heading', { name: 'Groups' }).waitFor();
  await phone.goto(`${url}/console/groups/acme`);
  await shot(phone, 'group-read-only-375px.png');
  await phone.goto(`${url}/console/overview`);
  await shot(phone, 'overview-375px.png');
  await phone.goto(`${url}/console/groups/acme-france`);
  await phone.locator('#usage').screenshot({ path: new URL('group-usage-375px.png', OUT).pathname });
  console.error('docs/console/group-usage-375px.png');
  await phone.goto(`${url}/console/data-sources/warehouse-eu`);
  await shot(phone, 'data-source-read-only-375px.png');
} finally {
  receiver.closeAllConnections();
  receiver.close();
  await browser.close();
  await serving.close();
  await services.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Thirty days of sessions for the Overview and the groups' charts (issue 32): recorded as the embed sessions count
 * them, at instants in the past, and written by one flush. Each group has its own shape (busy on weekdays, going
 * quiet, growing), from formulas rather than chance, so the pictures are the same each run.
 */
async function seedUsage(principal: Principal): Promise<void> {
  const DAY_MS = 86_400_000;
  const now = Date.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const shapes: Record<string, { viewers: number; renewals: number; sessions(day: number, weekend: boolean): number }> = {
    'acme-france': { viewers: 14, renewals: 2, sessions: (day, weekend) => Math.round((weekend ? 12 : 28) + 8 * Math.sin(day / 2)) },
    globex: { viewers: 9, renewals: 1, sessions: (day) => Math.max(0, Math.round(34 - day * 1.25)) },
    initech: { viewers: 6, renewals: 1, sessions: (day) => Math.round(2 + day * 0.9) },
    acme: { viewers: 5, renewals: 0, sessions: (day, weekend) => (weekend ? 1 : 6 + (day % 4)) },
    umbrella: { viewers: 3, renewals: 3, sessions: (day) => (day % 9 === 4 ? 12 : 2) },
  };
  for (const [id, shape] of Object.entries(shapes)) {
    const { teamId } = (await services.userGroups.get(principal, id)).group;
    for (let day = 0; day < 30; day++) {
      const start = today - (29 - day) * DAY_MS;
      const weekday = new Date(start).getUTCDay();
      const sessions = shape.sessions(day, weekday === 0 || weekday === 6);
      for (let i = 0; i < sessions; i++) {
        // Office hours, UTC, and never later than now (today's hours are not over yet).
        const at = new Date(Math.min(start + (8 + ((i * 5) % 10)) * 3_600_000 + i * 60_000, now - i * 1000));
        const viewer = `${['ana', 'bo', 'cy', 'dee', 'eli', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kim', 'lou', 'max', 'ned'][i % shape.viewers]}@${id}.example`;
        services.sessionActivity.record('Customer', teamId, at, viewer);
        for (let r = 0; r < shape.renewals; r++) services.sessionActivity.record('Customer', teamId, at, viewer, 'renewed');
      }
    }
  }
  await services.embedSessions.flushActivity();
}
