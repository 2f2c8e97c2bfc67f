import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { webhookWorkerFor, type WebhookWorker } from '../../../src/webhooks/delivery/webhook-worker.js';
import { buildForSuite } from '../../helpers/build.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

const FAST = { retryScheduleMs: [0], timeoutMs: 2000, pollMs: 20 };
const HOUR = 3_600_000;

/** After rotate_secret the previous secret signs beside the new one for 24 h, then no more. */
describe('a rotated webhook secret', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await target.close();
  });
  const server = buildForSuite({ webhooks: { ...FAST, allowPrivateTargets: true }, apiKey: false });
  let target: Receiver;
  before(async () => {
    target = await startReceiver();
  });

  async function deliveredAt(offsetMs: number, userGroupId: string): Promise<Record<string, string>> {
    const worker: WebhookWorker = webhookWorkerFor(server.services, {
      config: { ...server.services.webhookDelivery.config, ...FAST },
      now: () => new Date(Date.now() + offsetMs),
    });
    const count = target.received.length;
    const api = await server.client();
    await api.getOrCreate({ user_group_id: userGroupId, name: 'Grace' });
    worker.start();
    try {
      const received = await target.waitFor(count + 1);
      return received[count]!.headers as Record<string, string>;
    } finally {
      await worker.stop(5000);
    }
  }

  it('signs with both secrets for 24 h, then with the new one only', async () => {
    const principal = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };
    const { webhook, secret: first } = await server.services.webhooks.create(principal, {
      url: target.url,
      events: ['user_group.created'],
    });
    const { secret: second } = await server.services.webhooks.rotateSecret(principal, webhook.id);

    const within = await deliveredAt(23 * HOUR, 'grace-within');
    assert.equal(within['webhook-signature']!.split(' ').length, 2, within['webhook-signature']);
    const after = await deliveredAt(25 * HOUR, 'grace-after');
    assert.equal(after['webhook-signature']!.split(' ').length, 1, after['webhook-signature']);
    // The one signature left is the new secret's (checked without the timestamp window: the worker's clock is 25 h ahead).
    const [signature] = after['webhook-signature']!.split(' ');
    const body = target.received.at(-1)!.body;
    const expected = new Webhook(second).sign(after['webhook-id']!, new Date(Number(after['webhook-timestamp']) * 1000), body);
    assert.equal(signature, expected);
    assert.notEqual(signature, new Webhook(first).sign(after['webhook-id']!, new Date(Number(after['webhook-timestamp']) * 1000), body));
  });
});
