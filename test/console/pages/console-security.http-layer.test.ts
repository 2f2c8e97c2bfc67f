import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleClient } from '../../helpers/console-client.js';
import { buildForSuite, build } from '../../helpers/build.js';

/**
 * The console's protections on the wire: the session cookie, CSRF, the key's
 * rights, expiry and sign out, the API's own limits, and helmet reaching
 * /console only. On the store UGS_TEST_STORE names.
 */
describe('operator console: sessions and protections', () => {
  const server = buildForSuite({ trustedProxies: ['127.0.0.1'], apiKey: false });
  let writerKey: string;
  let writerKeyId: string;
  let readerKey: string;
  before(async () => {
    const writer = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    writerKey = writer.key;
    writerKeyId = writer.record.id;
    readerKey = (await server.services.apiKeys.create({ environment: 'Customer', access: 'read-only' })).key;
    const api = await server.client();
    assert.equal((await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);
  });

  const groupName = async () =>
    (await server.services.userGroups.get({ keyId: 'test', environment: 'Customer', access: 'read-only' }, 'acme')).group.name;

  it('a wrong key shows an error and sets no cookie; a right one sets an HttpOnly, SameSite=Strict, Path=/console cookie holding a random id', async () => {
    const browser = new ConsoleClient(server.url);
    const wrong = await browser.signIn('ugsk_wrong');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.match(wrong.text, /role="alert">That API key is not valid \(or was revoked\)\.</);
    assert.ok(!wrong.text.includes('Authorization'), "not the API's Authorization-header message");
    const unknown = await browser.signIn(`ugsk_${'x'.repeat(49)}`);
    assert.equal(unknown.status, 401);
    assert.match(unknown.text, /role="alert">That API key is not valid \(or was revoked\)\.</);
    const right = await browser.signIn(writerKey);
    assert.equal(right.status, 303);
    assert.equal(right.headers.get('location'), '/console/groups');
    const cookie = right.headers.get('set-cookie')!;
    assert.match(cookie, /^ugs_console=ugsc_[0-9A-Za-z]{49}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/);
    assert.ok(!cookie.includes(writerKey));
    assert.equal((await browser.get('/console/groups')).status, 200);
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const answer = await new ConsoleClient(server.url).signIn(writerKey, {
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '203.0.113.9',
      origin: 'https://' + new URL(server.url).host,
    });
    assert.equal(answer.status, 303);
    assert.match(answer.headers.get('set-cookie')!, /; Secure/);
  });

  it("refuses a post without the CSRF token, with a wrong one, with another session's, or from another site: 403, nothing changed", async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(writerKey);
    const other = new ConsoleClient(server.url);
    await other.signIn(writerKey);
    const token = await browser.csrfToken('/console/groups/acme');
    const edit = (fields: Record<string, string>, headers?: Record<string, string>) =>
      browser.post('/console/groups/acme/edit', { name: 'Forged', mapping: '', properties: '', ...fields }, headers);
    assert.equal((await edit({})).status, 403, 'no token');
    assert.equal((await edit({ _csrf: 'forged' })).status, 403, 'wrong token');
    assert.equal((await edit({ _csrf: await other.csrfToken() })).status, 403, "another session's token");
    assert.equal(
      (await edit({ _csrf: token }, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' })).status,
      403,
      'cross-site, even with cookie and token',
    );
    const noCookie = new ConsoleClient(server.url);
    assert.equal((await noCookie.post('/console/groups/acme/rotate', { _csrf: token })).status, 403, 'no session');
    assert.equal(await groupName(), 'Acme');
    const rightful = await edit({ _csrf: token, name: 'Acme Corp', properties: '{"region": "eu"}' });
    assert.equal(rightful.status, 303, rightful.text.slice(0, 500));
    assert.equal(await groupName(), 'Acme Corp');
  });

  it("audits a console change as an API change: the session's key and the client address", async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(writerKey);
    const token = await browser.csrfToken('/console/groups/acme');
    await browser.post(
      '/console/groups/acme/edit',
      { _csrf: token, name: 'Acme Audited', mapping: '', properties: '' },
      { 'x-forwarded-for': '198.51.100.7' },
    );
    const [last] = await server.services.audit.listAuditRecords({ group: { providedId: 'acme' }, newestFirst: true, limit: 1 });
    assert.equal(last?.action, 'user_group.updated');
    assert.equal(last?.clientAddress, '198.51.100.7');
    assert.equal(last?.keyId, writerKeyId);
  });

  it('a read-only session sees no write controls, and its writes are refused anyway', async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(readerKey);
    const page = await browser.get('/console/groups/acme');
    assert.equal(page.status, 200);
    for (const control of ['/edit"', '/rotate"', '/delete"', '/preview"', 'Rotate token'])
      assert.ok(!page.text.includes(control), `no ${control}`);
    const token = await browser.csrfToken('/console/groups/acme');
    const before = await groupName();
    const refused = await browser.post('/console/groups/acme/edit', {
      _csrf: token,
      name: 'Read-only was here',
      mapping: '',
      properties: '',
    });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /read-only/);
    assert.equal((await browser.post('/console/groups/acme/rotate', { _csrf: token })).status, 403);
    assert.equal((await browser.post('/console/groups/acme/delete', { _csrf: token, confirm: 'acme' })).status, 403);
    assert.equal(await groupName(), before);
  });

  it('sign out ends the session at once: the old cookie opens nothing', async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(writerKey);
    const cookie = browser.cookie;
    const out = await browser.post('/console/sign-out', { _csrf: await browser.csrfToken() });
    assert.equal(out.status, 303);
    assert.match(
      out.headers.get('set-cookie')!,
      /^ugs_console=; Max-Age=0; Path=\/console; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/,
    );
    browser.cookie = cookie;
    const after = await browser.get('/console/groups');
    assert.equal(after.status, 303);
    assert.equal(after.headers.get('location'), '/console/sign-in?ended=1');
  });

  it('signing in again replaces the session the browser held: the old id opens nothing', async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(writerKey);
    const first = browser.cookie;
    await browser.signIn(readerKey);
    assert.notEqual(browser.cookie, first);
    assert.match((await browser.get('/console/groups')).text, /Customer · read-only/);
    browser.cookie = first;
    assert.equal((await browser.get('/console/groups')).status, 303);
  });

  it('ends a session idle 30 minutes (and one past 12 hours), sending the browser back to sign in', async () => {
    const browser = new ConsoleClient(server.url);
    await browser.signIn(writerKey);
    const realNow = server.services.consoleSessions.now;
    try {
      server.services.consoleSessions.now = () => new Date(Date.now() + 29 * 60_000);
      assert.equal((await browser.get('/console/groups')).status, 200, '29 minutes idle');
      server.services.consoleSessions.now = () => new Date(Date.now() + (29 + 30) * 60_000);
      const expired = await browser.get('/console/groups');
      assert.equal(expired.status, 303);
      assert.equal(expired.headers.get('location'), '/console/sign-in?ended=1');
      const notice = await new ConsoleClient(server.url).get('/console/sign-in?ended=1');
      assert.match(notice.text, /Your session has ended/);
    } finally {
      server.services.consoleSessions.now = realNow;
    }
  });

  it('ends the sessions of a revoked key at once, and a revoked key does not sign in', async () => {
    const { key, record } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const browser = new ConsoleClient(server.url);
    await browser.signIn(key);
    assert.equal((await browser.get('/console/groups')).status, 200);
    await server.services.apiKeys.revoke(record.id);
    assert.equal((await browser.get('/console/groups')).status, 303);
    const again = await new ConsoleClient(server.url).signIn(key);
    assert.equal(again.status, 401);
    assert.match(again.text, /role="alert">That API key is not valid \(or was revoked\)\.</);
  });

  it('sends HSTS only over https: directly or as a trusted proxy says, never over plain http', async (t) => {
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.get('/console/sign-in')).headers.get('strict-transport-security'), null, 'plain http');
    const proxied = await browser.get('/console/sign-in', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' });
    assert.equal(proxied.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains', 'https at a trusted proxy');
    const untrusted = await build(t, { apiKey: false });
    const claimed = await new ConsoleClient(untrusted.url).get('/console/sign-in', { 'x-forwarded-proto': 'https' });
    assert.equal(claimed.headers.get('strict-transport-security'), null, 'X-Forwarded-Proto from a client that is not a trusted proxy');
  });

  it("sets the CSP (no unsafe-inline) and denies frames on console pages, and leaves the API's headers alone", async () => {
    const page = await new ConsoleClient(server.url).get('/console/sign-in');
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.ok(!csp.includes('unsafe-inline'));
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    const api = await (await server.client()).getOrCreate({ user_group_id: 'acme' });
    const health = await fetch(`${server.url}/healthz`);
    for (const name of [
      'content-security-policy',
      'x-frame-options',
      'strict-transport-security',
      'x-content-type-options',
      'set-cookie',
    ]) {
      assert.equal(api.headers[name], undefined, `API: ${name}`);
      assert.equal(health.headers.get(name), null, `/healthz: ${name}`);
    }
  });

  it('serves htmx and its own assets from the service, cached long', async () => {
    for (const name of ['htmx.min.js', 'console.js', 'console.css']) {
      const asset = await fetch(`${server.url}/console/assets/${name}`);
      assert.equal(asset.status, 200, name);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    }
  });
});

describe("operator console: the API's limits", () => {
  it("counts console sign-in failures in the API's failed-auth throttle, and console pages in the key's request budget", async (t) => {
    const server = await build(t, { limits: { authFailuresPerMinute: 2, requestsPerKeyPerMinute: 4 }, apiKey: false });
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    const wrongApi = await server.client();
    const wrongKey = `ugsk_${'x'.repeat(49)}`;
    for (let i = 0; i < 2; i++)
      assert.equal((await wrongApi.call('GET', { user_group_id: 'a' }, { headers: { authorization: `Token ${wrongKey}` } })).status, 401);
    const throttled = await new ConsoleClient(server.url).signIn(wrongKey);
    assert.equal(throttled.status, 429, 'the third failure from this address, through the console');
    assert.match(
      throttled.text,
      /role="alert">Too many failed authentication attempts from this address; retry in \d+ s\./,
      "the throttle's own message",
    );
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(key)).status, 303, 'a valid key is never throttled');
    const api = new (wrongApi.constructor as new (url: string, key: string) => typeof wrongApi)(server.url, key);
    for (let i = 0; i < 2; i++) assert.notEqual((await api.getOrCreate({ user_group_id: 'acme', name: 'Acme' })).status, 429);
    for (let i = 0; i < 2; i++) assert.equal((await browser.get('/console/groups')).status, 200);
    const over = await browser.get('/console/groups');
    assert.equal(over.status, 429, 'the fifth request of this key this minute, API and console together');
    assert.ok(over.headers.get('retry-after'));
  });
});
