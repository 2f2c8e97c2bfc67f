import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { PositionSeal } from '../../src/kernel/position-seal.js';
import { createTokenCipher } from '../../src/secrets/token-cipher.js';
import { MAX_WEBHOOKS_PER_ENVIRONMENT, webhookSecretSealContext } from '../../src/webhooks/webhook.js';
import { WebhookService } from '../../src/webhooks/webhook-service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { TargetGuard } from '../../src/webhooks/delivery/target-guard.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { newGroup } from '../helpers/new-group.js';
import { insertGroup } from '../helpers/group-writes.js';

const writer: Principal = { keyId: 'key_w', environment: 'Customer', access: 'read-write' };
const reader: Principal = { keyId: 'key_r', environment: 'Customer', access: 'read-only' };
const embed: Principal = { keyId: 'key_e', environment: 'Customer', access: 'embed' };
const tester: Principal = { keyId: 'key_t', environment: 'Testing', access: 'read-write' };
const URL = 'https://hooks.example/in';

function isError(code: string, fragment = '') {
  return (error: unknown) => error instanceof ServiceError && error.code === code && error.message.includes(fragment);
}

describe('WebhookService', () => {
  const dir = makeTempDir('ugs-webhooks');
  const cipher = createTokenCipher('s'.repeat(32));
  let now = new Date('2026-01-01T00:00:00Z');
  let store: SqliteStore;
  let service: WebhookService;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 's.sqlite') })).store;
    const targets = new TargetGuard({ allowPrivateTargets: false, resolve: async () => [{ address: '93.184.216.34', family: 4 }] });
    service = new WebhookService({ store: store.webhooks, cipher, targets, positions: new PositionSeal(store.settings), now: () => now });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('creates a webhook with a whsec_ secret shown once and stored sealed; lists and gets it without the secret', async () => {
    const { webhook, secret } = await service.create(writer, { url: URL, description: 'CRM sync' });
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.deepEqual(webhook, {
      id: webhook.id,
      url: URL,
      events: null,
      description: 'CRM sync',
      createdAt: now.toISOString(),
      disabledAt: null,
      failingSince: null,
    });
    assert.deepEqual(await service.get(reader, webhook.id), webhook);
    assert.ok((await service.list(reader)).some((w) => w.id === webhook.id));
    const stored = (await store.webhooks.findWebhook('Customer', webhook.id))!;
    assert.ok(!stored.secretCiphertext.includes(Buffer.from(secret)));
    assert.equal(cipher.open(stored.secretCiphertext, webhookSecretSealContext(webhook.id)), secret);
    await service.remove(writer, webhook.id);
  });

  it("scopes by environment and access: embed keys 403, read-only keys may read only, another environment's ids 404", async () => {
    const { webhook } = await service.create(writer, { url: URL, events: ['user_group.deleted', 'user_group.deleted'] });
    assert.deepEqual(webhook.events, ['user_group.deleted']);
    await assert.rejects(service.list(embed), isError('forbidden', 'embed key'));
    await assert.rejects(service.create(reader, { url: URL }), isError('forbidden', 'read-only'));
    await assert.rejects(service.remove(reader, webhook.id), isError('forbidden'));
    await assert.rejects(service.rotateSecret(reader, webhook.id), isError('forbidden'));
    await assert.rejects(service.get(tester, webhook.id), isError('not_found'));
    await assert.rejects(service.remove(tester, webhook.id), isError('not_found'));
    await assert.rejects(service.listDeliveries(tester, webhook.id, { limit: 10 }), isError('not_found'));
    await assert.rejects(service.redeliver(tester, webhook.id, 'evt_x'), isError('not_found'));
    await assert.rejects(
      service.create(writer, { url: URL, events: ['user_group.exploded' as never] }),
      isError('invalid_request', 'user_group.exploded'),
    );
    await assert.rejects(service.create(writer, { url: URL, description: 'x'.repeat(256) }), isError('invalid_request', '255'));
    await assert.rejects(service.create(writer, { url: 'http://hooks.example/in' }), isError('invalid_request', 'https'));
    await service.remove(writer, webhook.id);
    await assert.rejects(service.remove(writer, webhook.id), isError('not_found'));
  });

  it(`refuses more than ${MAX_WEBHOOKS_PER_ENVIRONMENT} webhooks in one environment with 409 conflict`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_WEBHOOKS_PER_ENVIRONMENT; i++) ids.push((await service.create(tester, { url: URL })).webhook.id);
    await assert.rejects(service.create(tester, { url: URL }), isError('conflict', String(MAX_WEBHOOKS_PER_ENVIRONMENT)));
    await service.create(writer, { url: URL }).then(({ webhook }) => service.remove(writer, webhook.id));
    for (const id of ids) await service.remove(tester, id);
  });

  it('rotates the secret: the new one shown once, the previous one kept sealed for 24 h', async () => {
    const { webhook, secret } = await service.create(writer, { url: URL });
    const rotated = await service.rotateSecret(writer, webhook.id);
    assert.notEqual(rotated.secret, secret);
    const stored = (await store.webhooks.findWebhook('Customer', webhook.id))!;
    assert.equal(cipher.open(stored.secretCiphertext, webhookSecretSealContext(webhook.id)), rotated.secret);
    assert.equal(cipher.open(stored.previousSecretCiphertext!, webhookSecretSealContext(webhook.id)), secret);
    assert.equal(stored.previousSecretExpiresAt, new Date(now.getTime() + 86_400_000).toISOString());
    await service.remove(writer, webhook.id);
  });

  it('redelivers a known event as a new pending delivery, 404 for an unknown one; enable is a no-op on an enabled webhook', async () => {
    const { webhook } = await service.create(writer, { url: URL });
    await insertGroup(
      store,
      newGroup('wh-redeliver', { name: 'R', tokenHash: Buffer.alloc(32, 7), tokenCiphertext: Buffer.alloc(60), at: now.toISOString() }),
      { keyId: 'key_w', fields: [] },
    );
    const [event] = (await store.events.listEvents('Customer', 0, 1000, '2020-01-01T00:00:00Z')).filter(
      (e) => e.data.user_group_id === 'wh-redeliver',
    );
    const delivery = await service.redeliver(writer, webhook.id, event!.id);
    assert.deepEqual(
      [delivery.eventId, delivery.eventType, delivery.status, delivery.attempts],
      [event!.id, 'user_group.created', 'pending', 0],
    );
    await assert.rejects(service.redeliver(writer, webhook.id, 'evt_unknown'), isError('not_found'));
    const page = await service.listDeliveries(writer, webhook.id, { limit: 1 });
    assert.equal(page.deliveries[0]!.id, delivery.id);
    assert.ok(page.nextCursor);
    const rest = await service.listDeliveries(writer, webhook.id, { limit: 1, after: page.nextCursor! });
    assert.ok(rest.deliveries.every((d) => d.id !== delivery.id));
    await assert.rejects(service.listDeliveries(writer, webhook.id, { limit: 1, after: 'garbage' }), isError('invalid_request', 'after'));
    assert.deepEqual(await service.enable(writer, webhook.id), await service.get(writer, webhook.id));
    await service.remove(writer, webhook.id);
  });

  it('never puts the secret or the URL in an audit record or event', async () => {
    const { webhook, secret } = await service.create(writer, { url: 'https://hooks.example/in?token=not-in-audit' });
    const rotated = await service.rotateSecret(writer, webhook.id);
    await service.remove(writer, webhook.id);
    const audit = JSON.stringify(await store.audit.listAuditRecords({ limit: 10_000 }));
    const events = JSON.stringify(await store.events.listEvents('Customer', 0, 10_000, '2020-01-01T00:00:00Z'));
    for (const text of [audit, events]) {
      for (const secretish of [secret, rotated.secret, 'whsec_', 'not-in-audit']) assert.ok(!text.includes(secretish), secretish);
    }
    now = new Date(now.getTime() + 1000);
  });
});
