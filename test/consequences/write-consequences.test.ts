import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiKeyCreated, apiKeyRevoked } from '../../src/api-keys/api-key-consequences.js';
import { sessionRevoked } from '../../src/embed-sessions/embed-session-consequences.js';
import { signingKeyRotated } from '../../src/signing-keys/signing-key-consequences.js';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/kernel/embed-tokens.js';
import { webhookCreated, webhookDisabled } from '../../src/webhooks/webhook-consequences.js';
import { combined } from '../../src/consequences/write-consequences.js';

const AT = '2026-05-01T00:00:00.000Z';

describe('the consequences of key, session and webhook writes', () => {
  it('key events name the key concerned, in audit record and event alike', () => {
    const key = {
      id: 'key_new',
      name: null,
      environment: 'Testing' as const,
      access: 'read-write' as const,
      keyHash: Buffer.alloc(32),
      createdAt: AT,
      lastUsedAt: null,
      revokedAt: null,
    };
    const created = apiKeyCreated(key, { keyId: 'ignored', fields: ['environment', 'access'] });
    assert.deepEqual(
      [created.audit[0]!.keyId, created.audit[0]!.teamId, created.events[0]!.data],
      ['key_new', null, { api_environment_tag: 'Testing', api_key_id: 'key_new' }],
    );
    assert.equal(apiKeyRevoked('Customer', 'key_old', AT, { keyId: null, fields: ['revoked_at'] }).events[0]!.type, 'api_key.revoked');
  });

  it('a session revoked is audited and listed in the feed until its token expires, plus clock tolerance', () => {
    const session = {
      sessionId: 'es_1',
      environment: 'Customer' as const,
      teamId: 3,
      providedId: 'acme',
      tokenVersion: 'tv',
      createdAt: AT,
      expiresAt: '2026-05-01T00:10:00.000Z',
      revokedAt: null,
    };
    const c = sessionRevoked(session, AT, { keyId: 'key_m', fields: [] });
    assert.deepEqual(
      c.audit.map((r) => [r.action, r.teamId, r.providedId]),
      [['embed_session.revoked', 3, 'acme']],
    );
    assert.deepEqual(c.revocations, [
      {
        environment: 'Customer',
        sessionId: 'es_1',
        providedId: 'acme',
        tokenVersion: null,
        viewerId: null,
        reason: 'session_revoked',
        revokedAt: AT,
        expiresAt: new Date(Date.parse(session.expiresAt) + CLOCK_TOLERANCE_SECONDS * 1000).toISOString(),
      },
    ]);
  });

  it('webhook changes name the webhook; one the worker makes names no key', () => {
    assert.deepEqual(webhookCreated('Customer', 'wh_1', AT, { keyId: 'key_h', fields: ['url'] }).events[0]!.data, {
      api_environment_tag: 'Customer',
      webhook_id: 'wh_1',
    });
    const disabled = webhookDisabled('Testing', 'wh_2', AT);
    assert.deepEqual(
      [disabled.audit[0]!.action, disabled.audit[0]!.keyId, disabled.audit[0]!.fields, disabled.audit[0]!.webhookId],
      ['webhook.disabled', null, ['disabled_at'], 'wh_2'],
    );
  });

  it('a signing key rotation is an event without an audit record', () => {
    const key = {
      kid: 'kid-1',
      environment: 'Testing' as const,
      generation: 2,
      algorithm: 'EdDSA' as const,
      publicJwk: {},
      privateKeyCiphertext: Buffer.alloc(1),
      createdAt: AT,
      activatesAt: '2026-05-01T00:05:00.000Z',
    };
    const c = signingKeyRotated(key);
    assert.deepEqual(c.audit, []);
    assert.deepEqual(
      c.events.map((e) => [e.environment, e.type, e.at, e.data]),
      [
        [
          'Testing',
          'signing_key.rotated',
          AT,
          { api_environment_tag: 'Testing', signing_key_id: 'kid-1', activates_at: '2026-05-01T00:05:00.000Z' },
        ],
      ],
    );
  });

  it("combined keeps each part's order", () => {
    const parts = [webhookCreated('Customer', 'wh_1', AT, { keyId: null, fields: [] }), webhookDisabled('Customer', 'wh_2', AT)];
    assert.deepEqual(
      combined(parts).events.map((e) => e.data.webhook_id),
      ['wh_1', 'wh_2'],
    );
  });
});
