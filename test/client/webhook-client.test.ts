import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { webhookWorkerFor, type WebhookWorker } from '../../src/webhooks/delivery/webhook-worker.js';
import { buildForSuite } from '../helpers/build.js';
import { eventually, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const FAST = { retryScheduleMs: [0, 200], timeoutMs: 2000, pollMs: 20 };

describe('UserGroupClient webhooks against a live server', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await worker.stop(5000);
    await target.close();
  });
  const server = buildForSuite({ webhooks: { ...FAST, allowPrivateTargets: true }, apiKey: false });
  let client: UserGroupClient;
  let worker: WebhookWorker;
  let target: Receiver;
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key });
    worker = webhookWorkerFor(server.services, { config: { ...server.services.webhookDelivery.config, ...FAST } });
    worker.start();
    target = await startReceiver();
  });

  it('registers, lists, reads, delivers, pages deliveries, redelivers, rotates, enables and removes', async () => {
    const created = await client.createWebhook({ url: target.url, events: ['user_group.created'] });
    assert.match(created.secret, /^whsec_/);
    const { secret, ...webhook } = created;
    assert.deepEqual(await client.listWebhooks(), [webhook]);
    assert.deepEqual(await client.getWebhook(webhook.id), webhook);

    await client.getOrCreate({ user_group_id: 'client-hooked', name: 'Hooked' });
    const [received] = await target.waitFor(1);
    assert.equal(
      (new Webhook(secret).verify(received!.body, received!.headers as Record<string, string>) as { type: string }).type,
      'user_group.created',
    );
    const page = await eventually(async () => {
      const p = await client.webhookDeliveries(webhook.id, { limit: 10 });
      return p.deliveries[0]?.status === 'succeeded' ? p : undefined;
    });
    assert.equal(page.next_cursor, null);
    const redelivered = await client.redeliver(webhook.id, page.deliveries[0]!.event_id);
    assert.deepEqual([redelivered.status, redelivered.event_id], ['pending', page.deliveries[0]!.event_id]);
    await target.waitFor(2);
    assert.equal(target.received[1]!.headers['webhook-id'], received!.headers['webhook-id']);

    const rotated = await client.rotateWebhookSecret(webhook.id);
    assert.notEqual(rotated.secret, secret);
    assert.equal((await client.enableWebhook(webhook.id)).disabled_at, null);
    await client.deleteWebhook(webhook.id);
    await assert.rejects(
      client.getWebhook(webhook.id),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 404 && e.code === 'not_found',
    );
    await assert.rejects(
      client.createWebhook({ url: 'http://93.184.216.34/x' }),
      (e: unknown) => e instanceof UserGroupServiceError && e.status === 400,
    );
  });
});
