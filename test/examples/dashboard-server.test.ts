import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDashboardServer, type DashboardServer } from '../../examples/dashboard/dashboard-server.js';
import { endViewerSessions } from '../../examples/dashboard/demo-viewers.js';
import { UserGroupClient } from '../../src/client/user-group-client.js';
import { buildForSuite } from '../helpers/build.js';

describe('example dashboard: a verifier that cannot read the revocation feed', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await dashboard?.close();
  });
  const service = buildForSuite({ apiKey: false });
  let dashboard: DashboardServer | undefined;

  it('answers 503 saying it cannot check sessions, not that the session ended', async () => {
    const { key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const client = new UserGroupClient({ baseUrl: service.url, apiKey: key, retries: 0 });
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    const { token } = await client.mintEmbedSession({ user_group_id: 'acme' });
    dashboard = await startDashboardServer({ serviceUrl: service.url, apiKey: 'ugsk_not_a_key_of_this_service', revocationPollMs: 50 });
    const res = await fetch(`${dashboard.url}/?token=${encodeURIComponent(token)}`);
    assert.equal(res.status, 503);
    const page = await res.text();
    assert.match(page, /This dashboard cannot check sessions right now/);
    assert.doesNotMatch(page, /session has ended/);
    // What an open page's script is told: ask again later, not "ended".
    assert.equal((await fetch(`${dashboard.url}/session?token=${encodeURIComponent(token)}`)).status, 503);
  });
});

describe("example dashboard: viewers' sessions", () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await dashboard.close();
  });
  const service = buildForSuite({ apiKey: false });
  let dashboard: DashboardServer;
  let client: UserGroupClient;
  let key: string;
  before(async () => {
    ({ key } = await service.services.apiKeys.create({ environment: 'Customer', access: 'embed' }));
    const { key: admin } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    await new UserGroupClient({ baseUrl: service.url, apiKey: admin }).getOrCreate({
      user_group_id: 'acme',
      name: 'Acme',
      properties: { region: 'eu' },
    });
    client = new UserGroupClient({ baseUrl: service.url, apiKey: key, retries: 0 });
    dashboard = await startDashboardServer({ serviceUrl: service.url, apiKey: key, revocationPollMs: 50 });
  });
  const mintFor = async (viewer: string) =>
    (await client.mintEmbedSession({ user_group_id: 'acme', viewer: { id: viewer, attributes: { sales_rep: viewer } } })).token;
  const page = (token: string) => fetch(`${dashboard.url}/?token=${encodeURIComponent(token)}`);
  const sessionState = async (token: string) => (await fetch(`${dashboard.url}/session?token=${encodeURIComponent(token)}`)).status;

  it("shows a viewer the orders of their sales_rep attribute, with the page's script allowed by its CSP and no inline one", async () => {
    const res = await page(await mintFor('ana'));
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<caption>Orders of sales rep ana in region eu, oldest first<\/caption>/);
    assert.equal(html.match(/<td>ana<\/td>/g)?.length, 4);
    assert.doesNotMatch(html, /<td>(ben|cleo)<\/td>/);
    assert.deepEqual(html.match(/<script[^>]*>/g), [
      '<script src="/ugs-embed-frame.js">',
      '<script src="/dashboard.js" data-check-ms="50" data-origins="[]">',
    ]);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'/);
    assert.doesNotMatch(csp, /unsafe/);
    for (const [path, says] of [
      ['/dashboard.js', /UserGroupEmbedFrame\.start/],
      ['/ugs-embed-frame.js', /window\.UserGroupEmbedFrame =/],
    ] as const) {
      const script = await fetch(`${dashboard.url}${path}`);
      assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8', path);
      assert.match(await script.text(), says);
    }
  });

  it("answers /session 204 while a session holds and 401 once its viewer's sessions ended; another viewer's holds", async () => {
    const [ana, ben] = [await mintFor('ana'), await mintFor('ben')];
    assert.equal(await sessionState(ana), 204);
    assert.equal(await sessionState(ben), 204);
    assert.equal(await sessionState('not.a.token'), 401);
    const ended = await endViewerSessions(service.url, key, 'ana');
    assert.equal(ended.viewer_id, 'ana');
    const deadline = Date.now() + 10_000;
    while ((await sessionState(ana)) === 204) {
      assert.ok(Date.now() < deadline, `ana's session still holds: ${JSON.stringify(dashboard.verifier.status().revocations)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await sessionState(ana), 401);
    assert.equal((await page(ana)).status, 401);
    // What the open page's script shows in place: the ended session's words, and no orders for the ended token.
    const orders = await fetch(`${dashboard.url}/orders?token=${encodeURIComponent(ana)}`);
    assert.equal(orders.status, 401);
    assert.match(await orders.text(), /This session has ended.*Every session of its viewer was ended\./s);
    const benOrders = await fetch(`${dashboard.url}/orders?token=${encodeURIComponent(ben)}&product=Team%20plan`);
    assert.equal(benOrders.status, 200);
    assert.match(await benOrders.text(), /<caption>Orders of Team plan of sales rep ben in region eu, oldest first<\/caption>/);
    assert.equal(await sessionState(ben), 204);
    assert.equal(await sessionState(await mintFor('ana')), 204, 'a session minted after the end works');
  });

  it("ending a viewer's sessions with a key that may not is the service's refusal, as the typed client reports it", async () => {
    const { key: readOnly } = await service.services.apiKeys.create({ environment: 'Customer', access: 'read-only' });
    await assert.rejects(endViewerSessions(service.url, readOnly, 'ana'), {
      name: 'UserGroupServiceError',
      status: 403,
      code: 'forbidden',
    });
    await assert.rejects(endViewerSessions('http://127.0.0.1:9', key, 'ana'), { status: 0, code: 'network_error' });
  });
});
