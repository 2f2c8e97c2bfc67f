import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleClient, type ConsoleAnswer } from '../../helpers/console-client.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite, type TestApp } from '../../helpers/build.js';

const GROUP = 'csrf-target';
const DATA_SOURCE = 'csrf-db';
const READER = { keyId: 'test', environment: 'Customer' as const, access: 'read-only' as const };
const CSRF = /This form&#39;s security token is missing or wrong|This form's security token is missing or wrong/;
const CROSS_SITE = /This form was posted from another site; the console accepts its own forms only\./;
const NO_SESSION = /Your console session has ended or was never started: sign in again\./;

/** The console's POST routes as the app registered them (printRoutes' tree, flattened), so a form added later is covered too. */
function consolePostRoutes(server: TestApp): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of server.app.printRoutes({ commonPrefix: false, method: 'POST' }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    routes.push(stack.join(''));
  }
  return routes.filter((route) => route.startsWith('/console/'));
}

/**
 * Issue 26: CSRF in every form of the console was refused. Every POST route
 * the console registers is posted, with fields that would otherwise be
 * accepted, without the CSRF token, with a wrong one, with another session's,
 * from another site (Sec-Fetch-Site, or Origin alone), and without the
 * session cookie: each is 403 with the refusal's own message, and nothing
 * changes. The sign-in form, which has no session to bind a token to, refuses
 * posts from another site.
 */
describe('operator console: CSRF in every form', () => {
  const server = buildForSuite({ webhooks: { allowPrivateTargets: true } });
  let api: ApiClient;
  let browser: ConsoleClient;
  let other: ConsoleClient;
  let webhookId: string;
  before(async () => {
    api = server.api;
    assert.equal((await api.getOrCreate({ user_group_id: GROUP, name: 'Target' })).status, 200);
    const hook = await api.call('POST', { url: 'https://127.0.0.1:9/hooks' }, { path: '/api/webhooks' });
    assert.equal(hook.status, 201, hook.text);
    webhookId = hook.json.webhook.id;
    // Nothing listens on port 9 of 127.0.0.1: a check fails fast.
    const dataSource = await api.call(
      'POST',
      { id: DATA_SOURCE, name: 'Target', kind: 'postgresql', connection: { host: '127.0.0.1', port: 9, database: 'd', user: 'u' } },
      { path: '/api/data_sources' },
    );
    assert.equal(dataSource.status, 201, dataSource.text);
    browser = new ConsoleClient(server.url);
    other = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
    assert.equal((await other.signIn(api.key!)).status, 303);
  });

  /** Each route's concrete path and the fields a rightful post would send. */
  const formOf = (route: string): { path: string; fields: Record<string, string> } => {
    // A group's and a data source's forms are also served by id in the query (/console/group/edit?id=…), for the ids `.` and `..`.
    const byQuery = route.startsWith('/console/group/') || route.startsWith('/console/data-source/');
    const path = byQuery
      ? `${route}?id=${encodeURIComponent(route.startsWith('/console/group/') ? GROUP : DATA_SOURCE)}`
      : route
          .replace('/groups/:id', `/groups/${GROUP}`)
          .replace('/webhooks/:id', `/webhooks/${webhookId}`)
          .replace('/data-sources/:id', `/data-sources/${DATA_SOURCE}`);
    const fields: Record<string, Record<string, string>> = {
      '/console/sign-out': {},
      '/console/groups/:id/edit': { name: 'Forged', mapping: '{"40": "attacker"}', properties: '{"admin": true}' },
      '/console/groups/:id/rotate': {},
      '/console/groups/:id/delete': { confirm: GROUP, cascade: '1' },
      '/console/groups/:id/preview': { viewer_id: 'forged-viewer', attributes: '{"admin": true}' },
      '/console/groups/:id/end-viewer-sessions': { viewer_id: 'victim', confirm: 'victim' },
      '/console/groups/:id/customer': { emails: 'attacker@evil.example', demo: '1' },
      '/console/group-tags/create': { name: 'forged' },
      '/console/group-tags/rename': { name: 'forged', new_name: 'forged-again' },
      '/console/group-tags/delete': { name: 'forged', confirm: 'forged' },
      '/console/webhooks': { url: 'https://127.0.0.1:9/attacker', events_all: '1' },
      '/console/webhooks/:id/rotate': {},
      '/console/webhooks/:id/remove': { confirm: webhookId },
      '/console/webhooks/:id/redeliver': { event_id: 'evt_unknown' },
      '/console/webhooks/:id/enable': {},
      '/console/data-sources': {
        id: 'forged',
        name: 'Forged',
        kind: 'postgresql',
        host: 'evil.example',
        database: 'd',
        user: 'u',
        ssl_mode: 'disable',
      },
      '/console/data-sources/:id/edit': {
        name: 'Forged',
        host: 'evil.example',
        port: '5432',
        database: 'd',
        user: 'u',
        password: 'x',
        ssl_mode: 'disable',
      },
      '/console/data-sources/:id/check': {},
      '/console/data-sources/:id/remove': { confirm: DATA_SOURCE, force: '1' },
    };
    const known = byQuery
      ? route.replace('/console/group/', '/console/groups/:id/').replace('/console/data-source/', '/console/data-sources/:id/')
      : route;
    assert.ok(known in fields, `a console form this test does not know: ${route}; add its fields`);
    return { path, fields: fields[known]! };
  };

  /** What a forged post could change: the audit log, the group's token, the webhooks, the data sources, the sessions. */
  const state = async () => ({
    dataSources: (await server.services.dataSources.list(READER, { limit: 100 })).dataSources,
    audit: (await server.services.audit.listAuditRecords({ limit: 10_000 })).length,
    token: (await api.getOrCreate({ user_group_id: GROUP })).json.user_group.token,
    webhooks: (await server.services.webhooks.list(READER)).map((w) => w.id),
    signedIn: (await browser.get('/console/groups')).status,
  });

  const refusedWith = (answer: ConsoleAnswer, why: RegExp, what: string) => {
    assert.equal(answer.status, 403, `${what}: ${answer.text.slice(0, 300)}`);
    assert.match(answer.text, why, what);
    assert.equal(answer.headers.get('set-cookie')?.startsWith('ugs_console=ugsc_') ?? false, false, `${what}: a session cookie was set`);
  };

  it('finds every console form among the routes (sign-in and sign-out, six per group and three per data source by path and by query, five for webhooks, add a data source, three for group tags)', () => {
    assert.deepEqual(consolePostRoutes(server).sort(), [
      '/console/data-source/check',
      '/console/data-source/edit',
      '/console/data-source/remove',
      '/console/data-sources',
      '/console/data-sources/:id/check',
      '/console/data-sources/:id/edit',
      '/console/data-sources/:id/remove',
      '/console/group-tags/create',
      '/console/group-tags/delete',
      '/console/group-tags/rename',
      '/console/group/customer',
      '/console/group/delete',
      '/console/group/edit',
      '/console/group/end-viewer-sessions',
      '/console/group/preview',
      '/console/group/rotate',
      '/console/groups/:id/customer',
      '/console/groups/:id/delete',
      '/console/groups/:id/edit',
      '/console/groups/:id/end-viewer-sessions',
      '/console/groups/:id/preview',
      '/console/groups/:id/rotate',
      '/console/sign-in',
      '/console/sign-out',
      '/console/webhooks',
      '/console/webhooks/:id/enable',
      '/console/webhooks/:id/redeliver',
      '/console/webhooks/:id/remove',
      '/console/webhooks/:id/rotate',
    ]);
  });

  it("refuses every form without the token, with a wrong one, with another session's, from another site and without the cookie; nothing changes", async () => {
    const before = await state();
    const token = await browser.csrfToken(`/console/groups/${GROUP}`);
    const othersToken = await other.csrfToken();
    const noCookie = new ConsoleClient(server.url);
    for (const route of consolePostRoutes(server).filter((r) => r !== '/console/sign-in')) {
      const { path, fields } = formOf(route);
      refusedWith(await browser.post(path, fields), CSRF, `${route} without a token`);
      refusedWith(await browser.post(path, { ...fields, _csrf: 'forged' }), CSRF, `${route} with a wrong token`);
      refusedWith(
        await browser.post(path, { ...fields, _csrf: `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}` }),
        CSRF,
        `${route} with its token altered`,
      );
      refusedWith(await browser.post(path, { ...fields, _csrf: othersToken }), CSRF, `${route} with another session's token`);
      refusedWith(
        await browser.post(path, { ...fields, _csrf: token }, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }),
        CROSS_SITE,
        `${route} cross-site`,
      );
      refusedWith(
        await browser.post(path, { ...fields, _csrf: token }, { 'sec-fetch-site': 'same-site', origin: 'https://sub.evil.example' }),
        CROSS_SITE,
        `${route} same-site`,
      );
      refusedWith(
        await browser.post(path, { ...fields, _csrf: token }, { origin: 'https://evil.example' }),
        CROSS_SITE,
        `${route} with a foreign Origin only`,
      );
      refusedWith(await noCookie.post(path, { ...fields, _csrf: token }), NO_SESSION, `${route} without the session cookie`);
    }
    assert.deepEqual(await state(), before);
  });

  it('refuses a sign-in posted from another site (login CSRF), setting no cookie', async () => {
    const victim = new ConsoleClient(server.url);
    refusedWith(
      await victim.post('/console/sign-in', { api_key: api.key! }, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }),
      CROSS_SITE,
      'cross-site sign-in',
    );
    refusedWith(
      await victim.post('/console/sign-in', { api_key: api.key! }, { origin: 'https://evil.example' }),
      CROSS_SITE,
      'sign-in with a foreign Origin only',
    );
    assert.equal((await victim.signIn(api.key!)).status, 303, 'the control: the same post from the console itself signs in');
  });

  it("accepts every form with the session's token from the console itself (the control: each refusal above was the token's or the site's)", async () => {
    const routes = consolePostRoutes(server).filter((r) => r !== '/console/sign-in');
    // Last: these end the group, the webhook and the session the others need.
    const order = [
      '/console/group/delete',
      '/console/groups/:id/delete',
      '/console/webhooks/:id/remove',
      '/console/data-source/remove',
      '/console/data-sources/:id/remove',
      '/console/sign-out',
    ];
    routes.sort((a, b) => order.indexOf(a) - order.indexOf(b));
    for (const route of routes) {
      const { path, fields } = formOf(route);
      const answer = await browser.post(path, { ...fields, _csrf: await browser.csrfToken() });
      assert.notEqual(answer.status, 403, `${route}: ${answer.text.slice(0, 300)}`);
      assert.ok(answer.status < 500, `${route}: ${answer.status}`);
    }
    assert.equal((await api.getOrCreate({ user_group_id: GROUP, name: 'Again' })).json.new_user_group, true, 'the delete went through');
  });
});
