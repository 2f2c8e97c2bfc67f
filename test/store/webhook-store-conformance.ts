import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Environment } from '../../src/kernel/environment.js';
import type { EventType } from '../../src/events/event.js';
import { newWebhookId, type WebhookRecord } from '../../src/webhooks/webhook.js';
import type { AttemptResult, ClaimedDelivery } from '../../src/webhooks/webhook-store.js';
import type { Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { deleteWebhook, enableWebhook, insertWebhook, rotateWebhookSecret } from '../helpers/webhook-writes.js';
import { webhookDisabled } from '../../src/webhooks/webhook-consequences.js';
import { insertGroup, updateGroup } from '../helpers/group-writes.js';

const AT = '2026-06-01T00:00:00.000Z';
const LATER = '2026-06-01T01:00:00.000Z';
const FAR = '2026-06-02T00:00:00.000Z';
const EARLY = '2020-01-01T00:00:00.000Z';
const by = { keyId: 'key_hooks', fields: ['url'] };

function webhook(environment: Environment, events: EventType[] | null = null): Omit<WebhookRecord, 'afterSequence'> {
  return {
    id: newWebhookId(),
    environment,
    url: 'https://receiver.example/hooks',
    events,
    description: null,
    secretCiphertext: randomBytes(40),
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
    createdAt: AT,
    disabledAt: null,
    failingSince: null,
  };
}

function group(environment: Environment, providedId: string) {
  return newGroup(providedId, { environment, name: providedId, at: AT });
}

function failed(claim: ClaimedDelivery, owner: string, at: string, overrides: Partial<AttemptResult> = {}): AttemptResult {
  return {
    deliveryId: claim.id,
    webhookId: claim.webhookId,
    leaseOwner: owner,
    attempt: { attempt: claim.attempts + 1, at, statusCode: 500, durationMs: 3, error: 'HTTP 500', responseExcerpt: 'no' },
    outcome: 'retrying',
    nextAttemptAt: at,
    disableIfFailingSince: EARLY,
    ifDisabled: webhookDisabled(claim.environment, claim.webhookId, at),
    ...overrides,
  };
}

/** Webhooks and their deliveries: fan-out, leases, outcomes, disabling, on every store. */
export function webhookStoreConformance(fixture: StoreFixture): void {
  describe(`Store webhooks: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());

    /** Dispatches every webhook until nothing is left, as the worker does. */
    async function dispatchAll(s: Store = store): Promise<void> {
      for (let round = 0; round < 10; round++) {
        const ids = await s.webhookDeliveries.webhooksToDispatch();
        if (ids.length === 0) return;
        for (const id of ids) await s.webhookDeliveries.dispatchWebhook(id, 2, AT, AT);
      }
      throw new Error('dispatch never finished');
    }

    async function claimAll(owner: string, s: Store = store): Promise<ClaimedDelivery[]> {
      return s.webhookDeliveries.claimDeliveries(owner, FAR, '2026-06-03T00:00:00.000Z', 100);
    }

    it('creates, lists, finds, rotates and deletes webhooks per environment, each change audited and evented', async () => {
      const w = webhook('Testing', ['user_group.created']);
      const created = await insertWebhook(store, w, by, 20);
      assert.equal(created?.id, w.id);
      assert.deepEqual(created?.events, ['user_group.created']);
      assert.deepEqual(
        (await store.webhooks.listWebhooks('Testing')).map((x) => x.id),
        [w.id],
      );
      assert.equal(await store.webhooks.findWebhook('Customer', w.id), null, 'another environment does not see it');
      const next = randomBytes(40);
      assert.equal(
        await rotateWebhookSecret(
          store,
          'Testing',
          w.id,
          {
            expectedSecretCiphertext: randomBytes(40),
            secretCiphertext: next,
            previousSecretCiphertext: w.secretCiphertext,
            previousSecretExpiresAt: FAR,
          },
          LATER,
          by,
        ),
        null,
        'a stale rotation loses',
      );
      const rotated = await rotateWebhookSecret(
        store,
        'Testing',
        w.id,
        {
          expectedSecretCiphertext: w.secretCiphertext,
          secretCiphertext: next,
          previousSecretCiphertext: w.secretCiphertext,
          previousSecretExpiresAt: FAR,
        },
        LATER,
        by,
      );
      assert.deepEqual(
        [rotated?.secretCiphertext, rotated?.previousSecretCiphertext, rotated?.previousSecretExpiresAt],
        [next, w.secretCiphertext, FAR],
      );
      assert.equal(await deleteWebhook(store, 'Customer', w.id, LATER, by), false);
      assert.equal(await deleteWebhook(store, 'Testing', w.id, LATER, by), true);
      assert.equal(await store.webhooks.findWebhook('Testing', w.id), null);
      const events = (await store.events.listEvents('Testing', 0, 100, EARLY)).filter((e) => e.type.startsWith('webhook.'));
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [
          ['webhook.created', { api_environment_tag: 'Testing', webhook_id: w.id }],
          ['webhook.secret_rotated', { api_environment_tag: 'Testing', webhook_id: w.id }],
          ['webhook.deleted', { api_environment_tag: 'Testing', webhook_id: w.id }],
        ],
      );
      const audit = (await store.audit.listAuditRecords({ limit: 1000 })).filter((r) => r.action.startsWith('webhook.'));
      assert.deepEqual(
        audit.map((r) => [r.action, r.webhookId, r.keyId]),
        [
          ['webhook.created', w.id, 'key_hooks'],
          ['webhook.secret_rotated', w.id, 'key_hooks'],
          ['webhook.deleted', w.id, 'key_hooks'],
        ],
      );
    });

    it('refuses a webhook beyond the per-environment cap', async () => {
      const env: Environment = 'Testing';
      for (const existing of await store.webhooks.listWebhooks(env)) await deleteWebhook(store, env, existing.id, AT, by);
      assert.ok(await insertWebhook(store, webhook(env), by, 2));
      assert.ok(await insertWebhook(store, webhook(env), by, 2));
      assert.equal(await insertWebhook(store, webhook(env), by, 2), null);
      for (const existing of await store.webhooks.listWebhooks(env)) await deleteWebhook(store, env, existing.id, AT, by);
    });

    it('dispatches only later events of its environment and subscribed types, one delivery per event, never twice', async () => {
      await insertGroup(store, group('Customer', 'wh-before'), by);
      const all = (await insertWebhook(store, webhook('Customer'), by, 20))!;
      const createdOnly = (await insertWebhook(store, webhook('Customer', ['user_group.created']), by, 20))!;
      await insertGroup(store, group('Customer', 'wh-after'), by);
      await updateGroup(store, 'Customer', 'wh-after', { name: 'N', updatedAt: LATER }, by);
      await insertGroup(store, group('Testing', 'wh-elsewhere'), by);
      await dispatchAll();
      // Dispatching again, from a second connection too, adds nothing.
      const second = await fixture.reopen();
      try {
        for (const id of [all.id, createdOnly.id]) await second.webhookDeliveries.dispatchWebhook(id, 100, AT, AT);
      } finally {
        await second.close();
      }
      const listed = async (id: string) => (await store.webhooks.listDeliveries(id, null, 100)).map((d) => d.eventType).reverse();
      // `all` gets every event after its cursor: its own webhook.created, then createdOnly's.
      assert.deepEqual(await listed(all.id), ['webhook.created', 'webhook.created', 'user_group.created', 'user_group.updated']);
      assert.deepEqual(await listed(createdOnly.id), ['user_group.created']);
      const [delivery] = await store.webhooks.listDeliveries(createdOnly.id, null, 1);
      const payload = JSON.parse(delivery!.payload);
      assert.equal(payload.data.user_group_id, 'wh-after');
      assert.deepEqual(Object.keys(payload), ['type', 'timestamp', 'data']);
      const claims = await claimAll('cleanup');
      for (const claim of claims)
        await store.webhookDeliveries.recordAttempt({
          ...failed(claim, 'cleanup', LATER),
          outcome: 'succeeded',
          nextAttemptAt: null,
          attempt: { ...failed(claim, 'cleanup', LATER).attempt, statusCode: 200, error: null },
        });
      for (const id of [all.id, createdOnly.id]) await deleteWebhook(store, 'Customer', id, LATER, by);
    });

    it('hands a due delivery to one of two concurrent claimers only, and applies an outcome only under a held lease', async () => {
      const w = (await insertWebhook(store, webhook('Testing', ['user_group.created']), by, 20))!;
      for (let i = 0; i < 12; i++) await insertGroup(store, group('Testing', `wh-claim-${i}`), by);
      await dispatchAll();
      const other = await fixture.reopen();
      try {
        const [a, b] = await Promise.all([claimAll('worker-a'), claimAll('worker-b', other)]);
        const ids = [...a, ...b].map((c) => c.id);
        assert.equal(ids.length, 12);
        assert.equal(new Set(ids).size, 12, 'no delivery claimed twice');
        assert.deepEqual(await claimAll('worker-c'), [], 'leased deliveries are not claimed again');
        const claim = a[0] ?? b[0]!;
        const holder = a[0] ? 'worker-a' : 'worker-b';
        assert.deepEqual(await store.webhookDeliveries.recordAttempt(failed(claim, 'worker-c', LATER)), {
          applied: false,
          disabled: false,
        });
        assert.deepEqual(await store.webhookDeliveries.recordAttempt(failed(claim, holder, LATER)), { applied: true, disabled: false });
        assert.deepEqual(
          await store.webhookDeliveries.recordAttempt(failed(claim, holder, LATER)),
          { applied: false, disabled: false },
          'the lease was released',
        );
        const recorded = (await store.webhooks.listDeliveries(w.id, null, 100)).find((d) => d.id === claim.id)!;
        assert.deepEqual([recorded.status, recorded.attempts, recorded.attemptLog.length], ['pending', 1, 1]);
        assert.equal((await store.webhooks.findWebhook('Testing', w.id))!.failingSince, LATER);
      } finally {
        await other.close();
      }
      // An expired lease is claimed again: what a killed worker held is sent by another.
      const expired = await store.webhookDeliveries.claimDeliveries(
        'worker-d',
        '2026-06-04T00:00:00.000Z',
        '2026-06-05T00:00:00.000Z',
        100,
      );
      assert.equal(expired.length, 12);
      assert.ok(await store.webhookDeliveries.oldestPendingAt());
      await deleteWebhook(store, 'Testing', w.id, LATER, by);
    });

    it('disables a webhook failing since the threshold: pending deliveries failed, a webhook.disabled event; enabling moves its cursor', async () => {
      const w = (await insertWebhook(store, webhook('Customer', ['user_group.created']), by, 20))!;
      await insertGroup(store, group('Customer', 'wh-dis-1'), by);
      await insertGroup(store, group('Customer', 'wh-dis-2'), by);
      await dispatchAll();
      const [first] = (await claimAll('w')).filter((c) => c.webhookId === w.id);
      // The first failure starts the failing period; not yet long enough.
      assert.deepEqual(
        await store.webhookDeliveries.recordAttempt(failed(first!, 'w', AT, { disableIfFailingSince: '2026-05-31T00:00:00.000Z' })),
        { applied: true, disabled: false },
      );
      const [again] = (await claimAll('w')).filter((c) => c.webhookId === w.id);
      assert.deepEqual(await store.webhookDeliveries.recordAttempt(failed(again!, 'w', FAR, { disableIfFailingSince: LATER })), {
        applied: true,
        disabled: true,
      });
      const disabled = (await store.webhooks.findWebhook('Customer', w.id))!;
      assert.equal(disabled.disabledAt, FAR);
      assert.deepEqual(
        (await store.webhooks.listDeliveries(w.id, null, 100)).map((d) => d.status),
        ['failed', 'failed'],
      );
      const events = await store.events.listEvents('Customer', 0, 1000, EARLY);
      assert.deepEqual(
        events.filter((e) => e.type === 'webhook.disabled').map((e) => e.data),
        [{ api_environment_tag: 'Customer', webhook_id: w.id }],
      );
      assert.ok(!(await store.webhookDeliveries.webhooksToDispatch()).includes(w.id), 'a disabled webhook does not dispatch');
      const enabled = (await enableWebhook(store, 'Customer', w.id, FAR, by))!;
      assert.deepEqual([enabled.disabledAt, enabled.failingSince, enabled.afterSequence], [null, null, events.at(-1)!.sequence]);
      const enabledEvents = (await store.events.listEvents('Customer', events.at(-1)!.sequence, 10, EARLY)).map((e) => [e.type, e.data]);
      assert.deepEqual(enabledEvents, [['webhook.enabled', { api_environment_tag: 'Customer', webhook_id: w.id }]]);
      assert.equal(await enableWebhook(store, 'Customer', w.id, FAR, by).then((x) => x?.id), w.id);
      assert.equal(
        (await store.events.listEvents('Customer', events.at(-1)!.sequence, 10, EARLY)).length,
        1,
        'enabling an enabled webhook changes nothing, writes no event',
      );
      await deleteWebhook(store, 'Customer', w.id, FAR, by);
    });

    it('forgets attempts older than the retention a few at a time, and finished deliveries left without any', async () => {
      const w = (await insertWebhook(store, webhook('Testing', ['user_group.created']), by, 20))!;
      await insertGroup(store, group('Testing', 'wh-prune'), by);
      await dispatchAll();
      const [claim] = (await claimAll('p')).filter((c) => c.webhookId === w.id);
      await store.webhookDeliveries.recordAttempt(failed(claim!, 'p', AT, { outcome: 'failed', nextAttemptAt: null }));
      assert.equal(await store.webhookDeliveries.pruneDeliveries('2026-05-01T00:00:00.000Z', 10), 0, 'nothing that old');
      assert.equal(await store.webhookDeliveries.pruneDeliveries(FAR, 10), 1);
      assert.equal(await store.webhookDeliveries.pruneDeliveries(FAR, 10), 0);
      assert.deepEqual(await store.webhooks.listDeliveries(w.id, null, 10), [], 'the failed delivery left without attempts is gone too');
      await deleteWebhook(store, 'Testing', w.id, LATER, by);
    });

    it('redelivers from the stored event, or from an earlier delivery once the event is gone', async () => {
      const w = (await insertWebhook(store, webhook('Customer', ['user_group.created']), by, 20))!;
      await insertGroup(store, group('Customer', 'wh-again'), by);
      await dispatchAll();
      const [original] = await store.webhooks.listDeliveries(w.id, null, 1);
      const found = await store.webhooks.findEventPayload('Customer', w.id, original!.eventId);
      assert.deepEqual(found, { eventType: 'user_group.created', payload: original!.payload });
      assert.equal(await store.webhooks.findEventPayload('Customer', w.id, 'evt_none'), null);
      // Retention forgets the event (a few per read): the earlier delivery still holds its payload.
      for (let read = 0; read < 500 && (await store.events.listEvents('Customer', 0, 1, '2000-01-01T00:00:00.000Z')).length > 0; read++) {
        await store.events.listEvents('Customer', 0, 1, '2099-01-01T00:00:00.000Z');
      }
      assert.equal(
        (await store.events.listEvents('Customer', 0, 1000, EARLY)).some((e) => e.id === original!.eventId),
        false,
        'the event is gone',
      );
      assert.deepEqual(await store.webhooks.findEventPayload('Customer', w.id, original!.eventId), found);
      const again = await store.webhooks.insertRedelivery({
        webhookId: w.id,
        environment: 'Customer',
        eventId: original!.eventId,
        eventType: 'user_group.created',
        payload: original!.payload,
        createdAt: LATER,
        nextAttemptAt: LATER,
      });
      assert.deepEqual([again.status, again.eventId, again.payload], ['pending', original!.eventId, original!.payload]);
      const page = await store.webhooks.listDeliveries(w.id, null, 1);
      assert.equal(page[0]!.id, again.id, 'newest first');
      assert.deepEqual(
        (await store.webhooks.listDeliveries(w.id, again.id, 10)).map((d) => d.id),
        [original!.id],
      );
      await deleteWebhook(store, 'Customer', w.id, LATER, by);
    });
  });
}
