import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { webhookWorkerFor, type WebhookWorker } from '../../../src/webhooks/delivery/webhook-worker.js';
import { ConsoleClient } from '../../helpers/console-client.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite, build } from '../../helpers/build.js';
import { eventually, startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

const FAST = { retryScheduleMs: [0, 200, 200], timeoutMs: 2000, pollMs: 20 };
const HOSTILE = '<script>alert("owned")</script><img src=x onerror=alert(1)>';
const READER = { keyId: 'test', environment: 'Customer' as const, access: 'read-only' as const };

/**
 * The console's Webhooks pages on the wire, on the store UGS_TEST_STORE names:
 * the secret shown once, the service's refusals beside the form's fields,
 * CSRF and read-only refusals, and what receivers answered shown escaped.
 */
describe('operator console: webhooks', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await worker.stop(5000);
    await receiver.close();
  });
  const server = buildForSuite({ webhooks: { ...FAST, allowPrivateTargets: true }, apiKey: false });
  let api: ApiClient;
  let worker: WebhookWorker;
  let receiver: Receiver;
  let browser: ConsoleClient;
  let reader: ConsoleClient;
  before(async () => {
    worker = webhookWorkerFor(server.services, { config: { ...server.services.webhookDelivery.config, ...FAST } });
    worker.start();
    // The receiver answers with markup a page must never run.
    receiver = await startReceiver(() => ({ status: 200, body: HOSTILE, headers: { 'content-type': 'text/html' } }));
    api = await server.client();
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
    reader = new ConsoleClient(server.url);
    assert.equal(
      (await reader.signIn((await server.services.apiKeys.create({ environment: 'Customer', access: 'read-only' })).key)).status,
      303,
    );
  });

  const add = async (fields: Record<string, string>, client = browser) =>
    client.post('/console/webhooks', { _csrf: await client.csrfToken('/console/webhooks'), ...fields });
  const idOf = (html: string) => /href="\/console\/webhooks\/(wh_[0-9a-f]{24})"/.exec(html)?.[1];
  const secretOf = (html: string) => /<code id="secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(html)?.[1];
  const errorOf = (html: string, field: string) => new RegExp(`<p id="${field}_error" class="error"[^>]*>([^<]*)</p>`).exec(html)?.[1];
  const unescape = (text: string) =>
    text
      .replace(/&#34;|&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');

  it('adds a webhook and shows its secret once, on the answer to the form only; the list and its page never show it', async () => {
    const added = await add({ url: receiver.url, events_all: '1', description: HOSTILE });
    assert.equal(added.status, 201, added.text.slice(0, 500));
    const secret = secretOf(added.text);
    const id = idOf(added.text);
    assert.ok(secret && id, 'the secret and the webhook id on the page');
    assert.match(added.text, /it will not be shown again/);
    assert.match(added.text, /<button type="button" data-copy-text="secret"[^>]*>Copy<\/button>/);
    assert.equal(added.headers.get('cache-control'), 'no-store');
    const [stored] = (await server.services.webhooks.list(READER)).filter((w) => w.id === id);
    assert.deepEqual([stored?.url, stored?.events, stored?.description], [receiver.url, null, HOSTILE]);
    for (const path of ['/console/webhooks', `/console/webhooks/${id}`]) {
      const page = await browser.get(path);
      assert.equal(page.status, 200, path);
      assert.ok(!page.text.includes(secret), `no secret on ${path}`);
      assert.ok(!page.text.includes('<script>alert') && !page.text.includes('<img src=x'), `the description escaped on ${path}`);
      assert.ok(page.text.includes('&lt;script&gt;alert('), `the description shown on ${path}`);
    }
  });

  it("shows a delivery with its attempts and the receiver's answer escaped, and redelivers it with the same event", async () => {
    const added = await add({ url: receiver.url, 'event_user_group.created': '1' });
    const id = idOf(added.text)!;
    await api.getOrCreate({ user_group_id: 'hooked', name: 'Hooked' });
    const page = await eventually(
      async () => {
        const answer = await browser.get(`/console/webhooks/${id}`);
        return answer.text.includes('succeeded') ? answer : undefined;
      },
      30_000,
      'the delivery succeeded',
    );
    assert.match(page.text, /<code>user_group\.created<\/code>/);
    assert.match(page.text, /<td>200<\/td><td>\d+ ms<\/td>/);
    const excerpt = /<pre class="excerpt">([^<]*)<\/pre>/.exec(page.text)?.[1] ?? '';
    assert.equal(unescape(excerpt), HOSTILE, 'the excerpt shown as text');
    assert.ok(!page.text.includes('<script>alert'), 'no live markup from the receiver');
    const eventId = /name="event_id" value="(evt_[^"]+)"/.exec(page.text)?.[1];
    assert.ok(eventId, 'a Redeliver form per delivery');
    const before = receiver.received.length;
    const redelivered = await browser.post(`/console/webhooks/${id}/redeliver`, {
      _csrf: await browser.csrfToken(`/console/webhooks/${id}`),
      event_id: eventId,
    });
    assert.equal(redelivered.status, 303, redelivered.text.slice(0, 500));
    assert.equal(redelivered.headers.get('location'), `/console/webhooks/${id}?done=redelivered`);
    const [again] = (await receiver.waitFor(before + 1)).slice(before);
    assert.equal(again?.headers['webhook-id'], eventId);
    const { deliveries } = await server.services.webhooks.listDeliveries(READER, id, { limit: 10 });
    assert.deepEqual(
      deliveries.map((d) => d.eventId),
      [eventId, eventId],
    );
  });

  it("shows the service's refusals beside the field they are about, keeping what was typed, and registers nothing", async () => {
    const count = async () => (await server.services.webhooks.list(READER)).length;
    const before = await count();
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ url: 'not a url', events_all: '1' }, 'url', /^"url" is not an absolute URL/],
      [{ url: 'http://93.184.216.34/hooks', events_all: '1' }, 'url', /^"url" must be an https URL|https/],
      [{ url: receiver.url }, 'events', /at least one type/],
      [{ url: receiver.url, events_all: '1', description: 'x'.repeat(256) }, 'description', /^"description" is at most 255 characters/],
    ];
    for (const [fields, field, message] of cases) {
      const answer = await add(fields);
      assert.equal(answer.status, 400, `${JSON.stringify(fields).slice(0, 80)}: ${answer.text.slice(0, 300)}`);
      assert.match(unescape(errorOf(answer.text, field) ?? ''), message, field);
      if (field === 'url')
        assert.match(
          answer.text,
          new RegExp(`id="url" name="url" type="url" value="${fields.url!.replace(/[.]/g, '\\.')}"`),
          'the URL as typed',
        );
    }
    assert.equal(await count(), before);
  });

  it('refuses a post without the CSRF token, or with a wrong one: 403, nothing changed', async () => {
    const before = (await server.services.webhooks.list(READER)).length;
    assert.equal((await browser.post('/console/webhooks', { url: receiver.url, events_all: '1' })).status, 403);
    assert.equal((await browser.post('/console/webhooks', { _csrf: 'forged', url: receiver.url, events_all: '1' })).status, 403);
    const id = (await server.services.webhooks.list(READER))[0]!.id;
    assert.equal((await browser.post(`/console/webhooks/${id}/remove`, { _csrf: 'forged', confirm: id })).status, 403);
    assert.equal((await browser.post(`/console/webhooks/${id}/rotate`, {})).status, 403);
    assert.equal((await server.services.webhooks.list(READER)).length, before);
  });

  it('a read-only session sees the webhooks and their deliveries without any write control, and its writes are refused', async () => {
    const [webhook] = await server.services.webhooks.list(READER);
    const id = webhook!.id;
    const list = await reader.get('/console/webhooks');
    const page = await reader.get(`/console/webhooks/${id}`);
    assert.equal(list.status, 200);
    assert.equal(page.status, 200);
    assert.ok(list.text.includes(id) && page.text.includes(receiver.url));
    for (const html of [list.text, page.text]) {
      const forms = [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(forms, ['/console/sign-out'], 'no form but sign out');
      for (const control of ['Add webhook', 'Redeliver', 'Rotate secret', 'Remove', 'Enable'])
        assert.ok(!html.includes(`>${control}<`), `no ${control}`);
    }
    const token = await reader.csrfToken(`/console/webhooks/${id}`);
    const refusals = [
      await reader.post('/console/webhooks', { _csrf: token, url: receiver.url, events_all: '1' }),
      await reader.post(`/console/webhooks/${id}/rotate`, { _csrf: token }),
      await reader.post(`/console/webhooks/${id}/enable`, { _csrf: token }),
      await reader.post(`/console/webhooks/${id}/remove`, { _csrf: token, confirm: id }),
      await reader.post(`/console/webhooks/${id}/redeliver`, { _csrf: token, event_id: 'evt_x' }),
    ];
    for (const refused of refusals) {
      assert.equal(refused.status, 403);
      assert.match(refused.text, /read-only/);
    }
    assert.deepEqual(await server.services.webhooks.get(READER, id), webhook);
  });

  it('rotates the secret (the new one shown once) and removes a webhook only when its id is typed', async () => {
    const id = idOf((await add({ url: receiver.url, events_all: '1' })).text)!;
    const path = `/console/webhooks/${id}`;
    const rotated = await browser.post(`${path}/rotate`, { _csrf: await browser.csrfToken(path) });
    assert.equal(rotated.status, 200);
    const secret = secretOf(rotated.text)!;
    assert.ok(secret);
    assert.match(rotated.text, /it will not be shown again/);
    assert.ok(!(await browser.get(path)).text.includes(secret));
    const wrong = await browser.post(`${path}/remove`, { _csrf: await browser.csrfToken(path), confirm: 'wh_nope' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /<dialog id="remove-dialog"[^>]* open/);
    assert.match(unescape(errorOf(wrong.text, 'confirm') ?? ''), /Type the webhook id/);
    await server.services.webhooks.get(READER, id);
    const removed = await browser.post(`${path}/remove`, { _csrf: await browser.csrfToken(path), confirm: id });
    assert.equal(removed.status, 303);
    assert.equal(removed.headers.get('location'), '/console/webhooks?done=removed');
    await assert.rejects(server.services.webhooks.get(READER, id), { code: 'not_found' });
    assert.equal((await browser.get(path)).status, 404);
  });

  it('shows the cap of 20 per environment beside the form', async () => {
    const writer = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };
    while ((await server.services.webhooks.list(READER)).length < 20) await server.services.webhooks.create(writer, { url: receiver.url });
    const answer = await add({ url: receiver.url, events_all: '1' });
    assert.equal(answer.status, 409);
    assert.match(unescape(errorOf(answer.text, 'form') ?? ''), /already has 20 webhooks/);
    assert.equal((await server.services.webhooks.list(READER)).length, 20);
  });
});

describe('operator console: webhooks to private addresses when they are not allowed', () => {
  it('shows the refusal, naming the setting, beside the URL', async (t) => {
    const server = await build(t);
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(server.api.key!)).status, 303);
    const answer = await browser.post('/console/webhooks', {
      _csrf: await browser.csrfToken('/console/webhooks'),
      url: 'http://127.0.0.1:9/hooks',
      events_all: '1',
    });
    assert.equal(answer.status, 400);
    assert.match(
      /<p id="url_error" class="error"[^>]*>([^<]*)<\/p>/.exec(answer.text)?.[1] ?? '',
      /127.0.0.1 is loopback, not a public address.*UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS/,
    );
  });
});

describe('operator console: a disabled webhook', () => {
  it('shows it disabled, without Redeliver, and Enable brings it back', async (t) => {
    // Disabled after any failure more than 1 ms after the first: a receiver that refuses connections (port 9) disables it at its second
    // attempt.
    const config = { retryScheduleMs: [0, 50, 50, 50], timeoutMs: 2000, pollMs: 20, disableAfterMs: 1, allowPrivateTargets: true };
    // Registered before the server's teardown, so the worker stops while the server is up.
    const workers: WebhookWorker[] = [];
    t.after(async () => {
      for (const worker of workers) await worker.stop(5000);
    });
    const server = await build(t, { webhooks: config });
    const worker = webhookWorkerFor(server.services, { config: { ...server.services.webhookDelivery.config, ...config } });
    workers.push(worker);
    worker.start();
    const api = server.api;
    const writer = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };
    const { webhook } = await server.services.webhooks.create(writer, { url: 'http://127.0.0.1:9/hooks', events: ['user_group.created'] });
    await api.getOrCreate({ user_group_id: 'unheard', name: 'Unheard' });
    await eventually(
      async () => ((await server.services.webhooks.get(READER, webhook.id)).disabledAt !== null ? true : undefined),
      30_000,
      'the webhook disabled',
    );
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
    const path = `/console/webhooks/${webhook.id}`;
    const page = await browser.get(path);
    assert.match(page.text, /<span class="state state-disabled">disabled<\/span>/);
    assert.match(page.text, /connection refused/);
    assert.ok(!page.text.includes('/redeliver"'), 'no Redeliver while disabled');
    assert.match(page.text, /action="[^"]+\/enable"[\s\S]*?>Enable<\/button>/);
    assert.match((await browser.get('/console/webhooks')).text, /state-disabled/);
    const enabled = await browser.post(`${path}/enable`, { _csrf: await browser.csrfToken(path) });
    assert.equal(enabled.status, 303);
    assert.equal(enabled.headers.get('location'), `${path}?done=enabled`);
    assert.equal((await server.services.webhooks.get(READER, webhook.id)).disabledAt, null);
    const after = await browser.get(`${path}?done=enabled`);
    assert.match(after.text, /Webhook enabled/);
    assert.ok(!after.text.includes('/enable"'), 'no Enable once enabled');
  });
});
