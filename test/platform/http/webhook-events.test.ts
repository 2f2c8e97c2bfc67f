import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { build } from '../../helpers/build.js';

describe('webhook events in GET /api/events', () => {
  it('lists webhook.created, webhook.secret_rotated and webhook.deleted naming the webhook, never its URL or secret', async (t) => {
    const server = await build(t, { webhooks: { allowPrivateTargets: true } });
    const principal = { keyId: server.api.keyId, environment: 'Customer' as const, access: 'read-write' as const };
    const url = 'http://127.0.0.1:9/hooks?token=not-in-an-event';
    const { webhook, secret } = await server.services.webhooks.create(principal, { url });
    const rotated = await server.services.webhooks.rotateSecret(principal, webhook.id);
    await server.services.webhooks.remove(principal, webhook.id);
    const res = await server.api.call('GET', undefined, { path: '/api/events?limit=1000' });
    assert.equal(res.status, 200, res.text);
    const mine = (res.json.events as { type: string; data: Record<string, unknown> }[]).filter((e) => e.type.startsWith('webhook.'));
    const data = { api_environment_tag: 'Customer', webhook_id: webhook.id };
    assert.deepEqual(
      mine.map((e) => [e.type, e.data]),
      [
        ['webhook.created', data],
        ['webhook.secret_rotated', data],
        ['webhook.deleted', data],
      ],
    );
    for (const secretish of [secret, rotated.secret, 'not-in-an-event']) assert.ok(!res.text.includes(secretish));
  });
});
