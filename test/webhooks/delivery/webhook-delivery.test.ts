import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { WebhookConfig } from '../../../src/platform/config.js';
import type { Principal } from '../../../src/kernel/principal.js';
import type { DeliveryView } from '../../../src/webhooks/webhook.js';
import { TargetGuard } from '../../../src/webhooks/delivery/target-guard.js';
import { webhookWorkerFor, type WebhookWorker } from '../../../src/webhooks/delivery/webhook-worker.js';
import { rawRequest, type ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { eventually, startReceiver, type Answer, type Receiver } from '../../helpers/webhook-receiver.js';

/** Fast enough for tests: three attempts a second apart at most, a 1 s timeout, a quick poll. */
const FAST: Partial<WebhookConfig> = { retryScheduleMs: [0, 200, 200], timeoutMs: 1000, pollMs: 20 };

/** npm test runs only test/platform/http twice; these run on both stores themselves. */
for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`webhook deliveries over real HTTP (${kind})`, () => {
    // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
    after(async () => {
      for (const receiver of receivers) await receiver.close();
    });
    const server = buildForSuite({ kind, webhooks: { ...FAST, allowPrivateTargets: true } });
    let api: ApiClient & { keyId: string };
    let principal: Principal;
    const receivers: Receiver[] = [];
    const workers: WebhookWorker[] = [];
    /** Every secret handed out, and every line the workers logged: no secret may be in a log. */
    const secrets: string[] = [];
    const workerLogs: string[] = [];

    before(async () => {
      api = server.api;
      principal = { keyId: api.keyId, environment: 'Customer', access: 'read-write' };
    });
    // One worker per test, with that test's settings: the others would pick up its deliveries too.
    afterEach(async () => {
      for (const worker of workers.splice(0)) await worker.stop(5000);
    });

    async function receiver(answer?: (n: number) => Answer): Promise<Receiver> {
      const started = await startReceiver(answer);
      receivers.push(started);
      return started;
    }

    function startWorker(overrides: Parameters<typeof webhookWorkerFor>[1] = {}): WebhookWorker {
      const log = {
        info: (details: object, message: string) => workerLogs.push(JSON.stringify(details) + message),
        warn: (details: object, message: string) => workerLogs.push(JSON.stringify(details) + message),
      };
      const worker = webhookWorkerFor(server.services, {
        config: { ...server.services.webhookDelivery.config, ...FAST },
        log,
        ...overrides,
      });
      workers.push(worker);
      worker.start();
      return worker;
    }

    /** The webhook's only delivery once it is no longer pending. */
    async function settled(webhookId: string): Promise<DeliveryView> {
      return eventually(
        async () => {
          const [delivery] = (await server.services.webhooks.listDeliveries(principal, webhookId, { limit: 10 })).deliveries;
          return delivery && delivery.status !== 'pending' ? delivery : undefined;
        },
        30_000,
        'the delivery settling',
      );
    }

    it('signs each delivery as Standard Webhooks says: the standardwebhooks package verifies it, the body is the event', async () => {
      const target = await receiver();
      const { webhook, secret } = await server.services.webhooks.create(principal, { url: target.url, events: ['user_group.created'] });
      secrets.push(secret);
      startWorker();
      assert.equal(
        (await api.getOrCreate({ user_group_id: 'wh-signed', name: 'Signed', properties: { plan: 'never-in-a-payload' } })).status,
        200,
      );
      const [delivery] = await target.waitFor(1);
      const headers = delivery!.headers as Record<string, string>;
      const verified = new Webhook(secret).verify(delivery!.body, headers) as { type: string; data: Record<string, unknown> };
      assert.equal(verified.type, 'user_group.created');
      assert.equal(verified.data.user_group_id, 'wh-signed');
      assert.match(headers['webhook-id']!, /^evt_/);
      assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/=]+$/);
      assert.equal(headers['content-type'], 'application/json');
      assert.match(headers['user-agent']!, /^user-group-service-webhooks\/\d+\.\d+\.\d+/);
      assert.ok(!delivery!.body.includes('never-in-a-payload') && !delivery!.body.includes('ugt_') && !delivery!.body.includes(secret));
      const { events } = await server.services.events.list(principal, { limit: 1000 });
      const event = events.find((e) => e.id === headers['webhook-id']);
      assert.deepEqual(JSON.parse(delivery!.body), { type: event!.type, timestamp: event!.timestamp, data: event!.data });
      const view = await settled(webhook.id);
      assert.equal(view.status, 'succeeded');
      assert.equal(view.attemptLog[0]!.statusCode, 204);
    });

    it('retries a receiver failing twice (500) and delivers on the third attempt, with the same webhook-id', async () => {
      const target = await receiver((n) => (n <= 2 ? { status: 500, body: 'boom' } : { status: 200 }));
      const { webhook, secret } = await server.services.webhooks.create(principal, { url: target.url, events: ['user_group.created'] });
      secrets.push(secret);
      startWorker();
      await api.getOrCreate({ user_group_id: 'wh-retried', name: 'Retried' });
      const deliveries = await target.waitFor(3);
      const ids = deliveries.map((d) => d.headers['webhook-id']);
      assert.equal(new Set(ids).size, 1);
      for (const d of deliveries) new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
      const view = await settled(webhook.id);
      assert.equal(view.status, 'succeeded');
      assert.equal(view.attempts, 3);
      assert.deepEqual(
        view.attemptLog.map((a) => [a.attempt, a.statusCode, a.error]),
        [
          [1, 500, 'HTTP 500'],
          [2, 500, 'HTTP 500'],
          [3, 200, null],
        ],
      );
      assert.equal(view.attemptLog[0]!.responseExcerpt, 'boom');
      assert.equal((await server.services.webhooks.get(principal, webhook.id)).failingSince, null);
    });

    it('after a secret rotation signs with the new and the previous secret, so a receiver with either verifies', async () => {
      const target = await receiver();
      const { webhook, secret: previous } = await server.services.webhooks.create(principal, {
        url: target.url,
        events: ['user_group.created'],
      });
      const { secret: current } = await server.services.webhooks.rotateSecret(principal, webhook.id);
      secrets.push(previous, current);
      startWorker();
      await api.getOrCreate({ user_group_id: 'wh-rotated', name: 'Rotated' });
      const [delivery] = await target.waitFor(1);
      const headers = delivery!.headers as Record<string, string>;
      assert.equal(headers['webhook-signature']!.split(' ').length, 2);
      for (const secret of [previous, current]) new Webhook(secret).verify(delivery!.body, headers);
    });

    it('does not follow a redirect: a 3xx is a failed attempt', async () => {
      const elsewhere = await receiver();
      const target = await receiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
      const { webhook } = await server.services.webhooks.create(principal, { url: target.url, events: ['user_group.created'] });
      startWorker({ config: { ...server.services.webhookDelivery.config, ...FAST, retryScheduleMs: [0] } });
      await api.getOrCreate({ user_group_id: 'wh-redirected', name: 'Redirected' });
      const view = await settled(webhook.id);
      assert.equal(view.status, 'failed');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [[302, 'redirect not followed (HTTP 302)']],
      );
      assert.equal(elsewhere.received.length, 0);
    });

    it('fails an attempt that outlasts the timeout', async () => {
      const target = await receiver(() => 'hang');
      const { webhook } = await server.services.webhooks.create(principal, { url: target.url, events: ['user_group.created'] });
      startWorker({ config: { ...server.services.webhookDelivery.config, ...FAST, retryScheduleMs: [0], timeoutMs: 300 } });
      await api.getOrCreate({ user_group_id: 'wh-slow', name: 'Slow' });
      const view = await settled(webhook.id);
      assert.equal(view.status, 'failed');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [[null, 'timeout']],
      );
    });

    it('refuses at delivery time a name that resolves to loopback when private targets are not allowed', async () => {
      const target = await receiver();
      const url = target.url.replace('127.0.0.1', 'localhost');
      const { webhook } = await server.services.webhooks.create(principal, { url, events: ['user_group.created'] });
      // The operator turned private targets off after the webhook was registered.
      startWorker({
        targets: new TargetGuard({ allowPrivateTargets: false }),
        config: { ...server.services.webhookDelivery.config, ...FAST, retryScheduleMs: [0] },
      });
      await api.getOrCreate({ user_group_id: 'wh-refused', name: 'Refused' });
      const view = await settled(webhook.id);
      assert.equal(view.status, 'failed');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [[null, 'target refused: localhost resolves to 127.0.0.1, which is loopback, not a public address']],
      );
      assert.equal(target.received.length, 0);
    });

    /**
     * A webhook registered to a name (allowed then), delivered by a worker whose guard resolves that name to `address`.
     * https unless the receiver must answer: a guard that let an address through would then connect to it, not refuse http.
     */
    async function deliverWhenResolvedTo(
      address: string,
      guard: Partial<ConstructorParameters<typeof TargetGuard>[0]>,
      groupId: string,
      scheme = 'https',
    ) {
      const target = await receiver();
      const url = target.url.replace('http://127.0.0.1', `${scheme}://localhost`);
      const { webhook } = await server.services.webhooks.create(principal, { url, events: ['user_group.created'] });
      const resolve = async (hostname: string) => (hostname === 'localhost' ? [{ address, family: address.includes(':') ? 6 : 4 }] : []);
      startWorker({
        targets: new TargetGuard({ allowPrivateTargets: false, resolve, ...guard }),
        config: { ...server.services.webhookDelivery.config, ...FAST, retryScheduleMs: [0] },
      });
      await api.getOrCreate({ user_group_id: groupId, name: groupId });
      return { view: await settled(webhook.id), target };
    }

    it('refuses at delivery time a name that now resolves to the NAT64 form of loopback, and never connects', async () => {
      const { view, target } = await deliverWhenResolvedTo('64:ff9b::7f00:1', { hostAddresses: async () => [] }, 'wh-nat64');
      assert.equal(view.status, 'failed');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [
          [
            null,
            'target refused: localhost resolves to 64:ff9b::7f00:1, which is the NAT64 form of 127.0.0.1, which is loopback, not a public address',
          ],
        ],
      );
      assert.equal(target.received.length, 0);
    });

    it("refuses at delivery time a name that now resolves to this host's own global address", async () => {
      const { view } = await deliverWhenResolvedTo('81.2.69.142', { hostAddresses: async () => ['127.0.0.1', '81.2.69.142'] }, 'wh-own');
      assert.equal(view.status, 'failed');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [
          [
            null,
            'target refused: localhost resolves to 81.2.69.142, which is an address of this host or its gateway, not a public address',
          ],
        ],
      );
    });

    it('connects to the address the guard checked, never to a second resolution of the name (DNS rebinding)', async () => {
      // The system resolves localhost to 127.0.0.1, where the receiver listens; the guard's answer, 127.0.0.2, has no listener.
      const { view, target } = await deliverWhenResolvedTo('127.0.0.2', { allowPrivateTargets: true }, 'wh-rebind', 'http');
      assert.deepEqual(
        view.attemptLog.map((a) => [a.statusCode, a.error]),
        [[null, 'connection refused']],
      );
      assert.equal(target.received.length, 0);
    });

    it('keeps delivering to other webhooks while one receiver hangs until the timeout', async () => {
      const hanging = await receiver(() => 'hang');
      const quick = await receiver();
      const slow = await server.services.webhooks.create(principal, { url: hanging.url, events: ['user_group.created'] });
      await server.services.webhooks.create(principal, { url: quick.url, events: ['user_group.updated'] });
      startWorker({ config: { ...server.services.webhookDelivery.config, ...FAST, retryScheduleMs: [0], timeoutMs: 20_000 } });
      await api.getOrCreate({ user_group_id: 'wh-hang', name: 'Hang' });
      await hanging.waitFor(1);
      // Dispatched and claimed after the hanging attempt started.
      await api.update({ user_group_id: 'wh-hang', name: 'Renamed' });
      await quick.waitFor(1, 15_000);
      const [inFlight] = (await server.services.webhooks.listDeliveries(principal, slow.webhook.id, { limit: 1 })).deliveries;
      assert.deepEqual([inFlight!.status, inFlight!.attempts], ['pending', 0], 'the hanging attempt was still in flight');
      await hanging.close();
    });

    it('counts attempts by outcome in /metrics, shows the oldest pending age, and logs no secret', async () => {
      const text = (await rawRequest(server.url, { method: 'GET', path: '/metrics' })).text;
      const count = (outcome: string) =>
        Number(new RegExp(`^ugs_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      assert.ok(count('succeeded') >= 2, text);
      assert.ok(count('retrying') >= 2, text);
      assert.ok(count('failed') >= 3, text);
      assert.match(text, /^ugs_webhook_oldest_pending_seconds \d/m);
      const logs = [...server.logs, ...workerLogs].join('\n');
      assert.ok(secrets.length >= 2);
      for (const secret of secrets) assert.ok(!logs.includes(secret) && !logs.includes(secret.slice('whsec_'.length)));
      assert.ok(!logs.includes('whsec_'));
    });
  });
}
