import { NO_AUDIT_DETAIL, type AuditContext } from '../../src/audit/audit.js';
import type { Environment } from '../../src/kernel/environment.js';
import type { WebhookRecord } from '../../src/webhooks/webhook.js';
import { webhookCreated, webhookDeleted, webhookEnabled, webhookSecretRotated } from '../../src/webhooks/webhook-consequences.js';
import type { SecretRotation, WebhookStore } from '../../src/webhooks/webhook-store.js';

/** The webhook writes as WebhookService makes them, with the consequences it decides: how store tests write webhooks. */
type Stores = { webhooks: WebhookStore };

export function insertWebhook(
  store: Stores,
  webhook: Omit<WebhookRecord, 'afterSequence'>,
  audit: AuditContext = NO_AUDIT_DETAIL,
  maxPerEnvironment = 20,
): Promise<WebhookRecord | null> {
  return store.webhooks.insertWebhook(
    webhook,
    webhookCreated(webhook.environment, webhook.id, webhook.createdAt, audit),
    maxPerEnvironment,
  );
}

export function deleteWebhook(
  store: Stores,
  environment: Environment,
  id: string,
  at: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
): Promise<boolean> {
  return store.webhooks.deleteWebhook(environment, id, webhookDeleted(environment, id, at, audit));
}

export function rotateWebhookSecret(
  store: Stores,
  environment: Environment,
  id: string,
  rotation: SecretRotation,
  at: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
): Promise<WebhookRecord | null> {
  return store.webhooks.rotateWebhookSecret(environment, id, rotation, webhookSecretRotated(environment, id, at, audit));
}

export function enableWebhook(
  store: Stores,
  environment: Environment,
  id: string,
  at: string,
  audit: AuditContext = NO_AUDIT_DETAIL,
): Promise<WebhookRecord | null> {
  return store.webhooks.enableWebhook(environment, id, webhookEnabled(environment, id, at, audit));
}
