import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createReceiver } from '../../../examples/webhook-receiver/receiver.js';
import { readHostAddresses } from '../../../src/platform/network/host-addresses.js';
import { webhookWorkerFor, type WebhookWorker } from '../../../src/webhooks/delivery/webhook-worker.js';
import { buildForSuite } from '../../helpers/build.js';
import { hostOf, ISSUE_26_GAPS } from '../../helpers/refused-targets.js';
import { eventually, startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

const FAST = { retryScheduleMs: [0, 200, 200], timeoutMs: 2000, pollMs: 20 };
const path = (suffix = '') => ({ path: `/api/webhooks${suffix}` });

describe('/api/webhooks', () => {
  const server = buildForSuite({
    webhooks: { ...FAST, allowPrivateTargets: true },
    clients: { testing: { environment: 'Testing' }, reader: { access: 'read-only' }, embed: { access: 'embed' } },
  });
  let worker: WebhookWorker;
  let target: Receiver;
  before(async () => {
    worker = webhookWorkerFor(server.services, { config: { ...server.services.webhookDelivery.config, ...FAST } });
    worker.start();
    target = await startReceiver();
  });
  after(async () => {
    await worker.stop(5000);
    await target.close();
  });

  it('registers a webhook: 201, the secret once (whsec_), every event by default; listing and reading never show the secret', async () => {
    const res = await server.api.call('POST', { url: target.url, description: 'all of it' }, path());
    assert.equal(res.status, 201, res.text);
    const { webhook } = res.json;
    assert.match(webhook.id, /^wh_/);
    assert.match(webhook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(
      [webhook.url, webhook.events, webhook.description, webhook.disabled_at, webhook.failing_since],
      [target.url, ['*'], 'all of it', null, null],
    );
    const listed = await server.api.call('GET', undefined, path());
    assert.equal(listed.status, 200, listed.text);
    const mine = listed.json.webhooks.find((w: { id: string }) => w.id === webhook.id);
    const { secret, ...withoutSecret } = webhook;
    assert.deepEqual(mine, withoutSecret);
    const read = await server.api.call('GET', undefined, path(`/${webhook.id}`));
    assert.deepEqual(read.json.webhook, withoutSecret);
    assert.ok(!listed.text.includes(secret) && !read.text.includes(secret));
    assert.equal((await server.api.call('DELETE', undefined, path(`/${webhook.id}`))).status, 200);
  });

  it('refuses bad registrations with 400 naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [{ url: 'http://93.184.216.34/x' }, /https/],
      [{ url: 'not a url' }, /url/i],
      [{ url: 'https://user:pass@203.0.113.10/x' }, /credentials|user/i],
      [
        { url: target.url, events: ['user_group.exploded'] },
        /^"events\.0" must be one of "user_group\.created", "user_group\.updated", .*"webhook\.disabled", .*"\*"\.$/,
      ],
      [{ url: target.url, events: ['user_group.created', 7] }, /^"events\.1" must be one of "user_group\.created", /],
      [{ url: target.url, events: ['*', 'user_group.created'] }, /"\*"|\*/],
      [{ url: target.url, events: [] }, /events/],
      [{ url: target.url, description: 'x'.repeat(256) }, /description/],
      [{}, /url/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api.call('POST', body, path());
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.json.error.code, 'invalid_request');
      assert.match(res.json.error.message, message, JSON.stringify(body));
    }
  });

  it('keeps webhooks to their environment and their access: read-only may read, embed keys nothing, other environments 404', async () => {
    const { webhook } = (await server.api.call('POST', { url: target.url, events: ['user_group.deleted'] }, path())).json;
    assert.equal((await server.clients.testing.call('GET', undefined, path(`/${webhook.id}`))).status, 404);
    assert.ok(
      !(await server.clients.testing.call('GET', undefined, path())).json.webhooks.some((w: { id: string }) => w.id === webhook.id),
    );
    assert.equal((await server.clients.testing.call('DELETE', undefined, path(`/${webhook.id}`))).status, 404);
    assert.equal((await server.clients.reader.call('GET', undefined, path(`/${webhook.id}`))).status, 200);
    assert.equal((await server.clients.reader.call('GET', undefined, path(`/${webhook.id}/deliveries`))).status, 200);
    for (const [method, suffix, body] of [
      ['POST', '', { url: target.url }],
      ['DELETE', `/${webhook.id}`, undefined],
      ['POST', `/${webhook.id}/rotate_secret`, undefined],
      ['POST', `/${webhook.id}/enable`, undefined],
      ['POST', `/${webhook.id}/redeliver`, { event_id: 'evt_x' }],
    ] as const) {
      assert.equal((await server.clients.reader.call(method, body, path(suffix))).status, 403, `read-only ${method} ${suffix}`);
      assert.equal((await server.clients.embed.call(method, body, path(suffix))).status, 403, `embed ${method} ${suffix}`);
    }
    assert.equal((await server.clients.embed.call('GET', undefined, path())).status, 403);
    assert.equal((await server.api.call('GET', undefined, path('/wh_unknown'))).status, 404);
    assert.equal((await server.api.call('DELETE', undefined, path(`/${webhook.id}`))).status, 200);
    assert.equal((await server.api.call('DELETE', undefined, path(`/${webhook.id}`))).status, 404, 'gone');
  });

  it("delivers to the docs' example receiver, which verifies it; the delivery is listed with its attempt; redeliver sends the same webhook-id again", async () => {
    const events: { id: string; type: string; data: Record<string, unknown> }[] = [];
    let secret = '';
    const received: string[] = [];
    const receiver = createReceiver('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', () => {});
    // Registered first (to know its URL), then rebuilt with the secret the service answers.
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    receiver.close();
    const created = await server.api.call('POST', { url, events: ['user_group.created'] }, path());
    assert.equal(created.status, 201, created.text);
    secret = created.json.webhook.secret;
    const real = createReceiver(secret, (event) => events.push(event));
    real.on('request', (request) => received.push(String(request.headers['webhook-id'])));
    await new Promise<void>((resolve) => real.listen(Number(new URL(url).port), '127.0.0.1', resolve));
    try {
      await server.api.getOrCreate({ user_group_id: 'wh-http', name: 'Delivered' });
      await eventually(async () => (events.length === 1 ? true : undefined), 30_000, 'the example receiver verifying the event');
      assert.deepEqual([events[0]!.type, events[0]!.data.user_group_id], ['user_group.created', 'wh-http']);
      const id = created.json.webhook.id;
      const listed = await eventually(async () => {
        const res = await server.api.call('GET', undefined, path(`/${id}/deliveries`));
        return res.json.deliveries[0]?.status === 'succeeded' ? res : undefined;
      });
      const [delivery] = listed.json.deliveries;
      assert.equal(delivery.event_id, events[0]!.id);
      assert.deepEqual([delivery.event_type, delivery.attempts, delivery.next_attempt_at], ['user_group.created', 1, null]);
      assert.deepEqual(
        [delivery.attempt_log[0].attempt, delivery.attempt_log[0].status_code, delivery.attempt_log[0].error],
        [1, 204, null],
      );

      const again = await server.api.call('POST', { event_id: delivery.event_id }, path(`/${id}/redeliver`));
      assert.equal(again.status, 202, again.text);
      assert.deepEqual([again.json.delivery.status, again.json.delivery.event_id], ['pending', delivery.event_id]);
      await eventually(async () => (received.length === 2 ? true : undefined), 30_000, 'the redelivery');
      assert.deepEqual(received, [delivery.event_id, delivery.event_id], 'the same webhook-id both times');
      assert.equal(events.length, 1, 'the example receiver deduplicates on webhook-id');
      assert.equal((await server.api.call('POST', { event_id: 'evt_unknown' }, path(`/${id}/redeliver`))).status, 404);
      assert.equal((await server.api.call('GET', undefined, path(`/${id}/deliveries?after=garbage`))).status, 400);
    } finally {
      real.close();
    }
  });

  it('rotate_secret answers a new secret; for a while each delivery is signed with both, so either verifies', async () => {
    const own = await startReceiver();
    try {
      const created = await server.api.call('POST', { url: own.url, events: ['user_group.deleted'] }, path());
      const rotated = await server.api.call('POST', undefined, path(`/${created.json.webhook.id}/rotate_secret`));
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.json.webhook.secret, created.json.webhook.secret);
      assert.match(rotated.json.webhook.secret, /^whsec_/);
      await server.api.getOrCreate({ user_group_id: 'wh-rotated', name: 'R' });
      await server.api.call('DELETE', { user_group_id: 'wh-rotated' });
      const [delivery] = await own.waitFor(1);
      const headers = delivery!.headers as Record<string, string>;
      assert.equal(headers['webhook-signature']!.split(' ').length, 2);
      for (const secret of [created.json.webhook.secret, rotated.json.webhook.secret]) {
        assert.equal((new Webhook(secret).verify(delivery!.body, headers) as { type: string }).type, 'user_group.deleted');
      }
      assert.equal((await server.api.call('POST', undefined, path('/wh_unknown/rotate_secret'))).status, 404);
    } finally {
      await own.close();
    }
  });

  it('enable answers the webhook (nothing to do when enabled); the webhook changes are themselves events, without the secret', async () => {
    const created = await server.api.call('POST', { url: target.url }, path());
    const id = created.json.webhook.id;
    const enabled = await server.api.call('POST', undefined, path(`/${id}/enable`));
    assert.equal(enabled.status, 200, enabled.text);
    assert.equal(enabled.json.webhook.disabled_at, null);
    assert.equal((await server.api.call('DELETE', undefined, path(`/${id}`))).status, 200);
    const feed = await server.api.call('GET', undefined, { path: '/api/events?limit=1000' });
    const mine = feed.json.events.filter((e: { data: { webhook_id?: string } }) => e.data.webhook_id === id);
    assert.deepEqual(
      mine.map((e: { type: string }) => e.type),
      ['webhook.created', 'webhook.deleted'],
    );
    assert.ok(!feed.text.includes(created.json.webhook.secret));
  });
});

describe('/api/webhooks without UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  const server = buildForSuite();

  it("refuses with 400 every non-public range issue 26 found open, and this machine's own interface and gateway addresses, naming why", async () => {
    const own = (await readHostAddresses()).map((address) => [address, 'not a public address'] as const);
    for (const [address, what] of [...ISSUE_26_GAPS, ...own]) {
      const res = await server.api.call('POST', { url: `https://${hostOf(address)}/hooks` }, path());
      assert.equal(res.status, 400, `${address}: ${res.text}`);
      assert.equal(res.json.error.code, 'invalid_request');
      const message: string = res.json.error.message;
      assert.ok(
        message.startsWith('"url" is refused: ') && message.includes(what) && message.includes('not a public address'),
        `${address}: ${message}`,
      );
      assert.match(message, /allowed only when the operator sets UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true/);
    }
    assert.deepEqual((await server.api.call('GET', undefined, path())).json.webhooks, []);
  });
});
