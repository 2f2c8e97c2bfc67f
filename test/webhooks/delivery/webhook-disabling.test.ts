import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../../src/kernel/principal.js';
import { webhookWorkerFor } from '../../../src/webhooks/delivery/webhook-worker.js';
import { buildForSuite } from '../../helpers/build.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';

const HOUR = 3_600_000;

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`disabling a webhook that fails for UGS_WEBHOOK_DISABLE_AFTER_HOURS (controlled clock, ${kind})`, () => {
    // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
    after(async () => {
      await target.close();
    });
    const server = buildForSuite({ kind, webhooks: { allowPrivateTargets: true }, apiKey: false });
    let target: Receiver;
    let principal: Principal;
    before(async () => {
      target = await startReceiver(() => ({ status: 503 }));
      principal = { keyId: (await server.client()).keyId, environment: 'Customer', access: 'read-write' };
    });

    it('disables it on the first failure past the window, fails its pending deliveries, writes webhook.disabled; enable starts from now', async () => {
      let now = new Date();
      const start = now.getTime();
      const { webhook } = await server.services.webhooks.create(principal, { url: target.url, events: ['user_group.created'] });
      const worker = webhookWorkerFor(server.services, {
        now: () => now,
        // No jitter: a retry an hour (not up to 66 min) after 4.5 h is due by 5.5 h.
        random: () => 0.5,
        config: {
          ...server.services.webhookDelivery.config,
          retryScheduleMs: [0, HOUR, HOUR, HOUR, HOUR],
          disableAfterMs: 5 * HOUR,
          timeoutMs: 5000,
        },
      });
      const api = await server.client();
      await api.getOrCreate({ user_group_id: 'dis-1', name: 'One' });
      await api.getOrCreate({ user_group_id: 'dis-2', name: 'Two' });

      await worker.runOnce();
      assert.equal(target.received.length, 2);
      let view = await server.services.webhooks.get(principal, webhook.id);
      assert.equal(view.failingSince, new Date(start).toISOString());
      assert.equal(view.disabledAt, null);

      // 4.5 h of failures: still enabled.
      now = new Date(start + 4.5 * HOUR);
      await worker.runOnce();
      assert.equal((await server.services.webhooks.get(principal, webhook.id)).disabledAt, null);

      // Past 5 h, the next failure disables it.
      now = new Date(start + 5.5 * HOUR);
      await worker.runOnce();
      view = await server.services.webhooks.get(principal, webhook.id);
      assert.ok(view.disabledAt !== null);
      const deliveries = (await server.services.webhooks.listDeliveries(principal, webhook.id, { limit: 10 })).deliveries;
      assert.deepEqual(
        deliveries.map((d) => d.status),
        ['failed', 'failed'],
      );
      const { events } = await server.services.events.list(principal, { limit: 1000 });
      const disabled = events.filter((e) => e.type === 'webhook.disabled');
      assert.deepEqual(
        disabled.map((e) => e.data),
        [{ api_environment_tag: 'Customer', webhook_id: webhook.id }],
      );

      // Disabled: new events are not dispatched to it; enabling skips what happened meanwhile.
      await api.getOrCreate({ user_group_id: 'dis-3', name: 'Three' });
      const sent = target.received.length;
      await worker.runOnce();
      assert.equal(target.received.length, sent);
      const enabled = await server.services.webhooks.enable(principal, webhook.id);
      assert.deepEqual([enabled.disabledAt, enabled.failingSince], [null, null]);
      await worker.runOnce();
      assert.equal(target.received.length, sent, 'dis-3 happened while it was disabled');
      await api.getOrCreate({ user_group_id: 'dis-4', name: 'Four' });
      await worker.runOnce();
      assert.equal(target.received.length, sent + 1);
      assert.equal(JSON.parse(target.received.at(-1)!.body).data.user_group_id, 'dis-4');
    });
  });
}
