import type { AuditContext } from '../../audit/audit.js';
import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import type { DeliveryRecord, WebhookRecord } from '../../webhooks/webhook.js';
import type {
  AttemptResult,
  ClaimedDelivery,
  NewRedelivery,
  SecretRotation,
  WebhookDeliveryStore,
  WebhookStore,
} from '../../webhooks/webhook-store.js';
import type { StoreTiming } from './store-timing.js';

/* The webhook ports, each async method timed under its own name, as in timed-ports.ts. */

export class TimedWebhookStore implements WebhookStore {
  constructor(
    private readonly inner: WebhookStore,
    private readonly timing: StoreTiming,
  ) {}

  insertWebhook(
    webhook: Omit<WebhookRecord, 'afterSequence'>,
    audit: AuditContext,
    maxPerEnvironment: number,
  ): Promise<WebhookRecord | null> {
    return this.timing.time('insertWebhook', () => this.inner.insertWebhook(webhook, audit, maxPerEnvironment));
  }
  listWebhooks(environment: Environment): Promise<WebhookRecord[]> {
    return this.timing.time('listWebhooks', () => this.inner.listWebhooks(environment));
  }
  findWebhook(environment: Environment, id: string): Promise<WebhookRecord | null> {
    return this.timing.time('findWebhook', () => this.inner.findWebhook(environment, id));
  }
  deleteWebhook(environment: Environment, id: string, at: string, audit: AuditContext): Promise<boolean> {
    return this.timing.time('deleteWebhook', () => this.inner.deleteWebhook(environment, id, at, audit));
  }
  rotateWebhookSecret(
    environment: Environment,
    id: string,
    rotation: SecretRotation,
    at: string,
    audit: AuditContext,
  ): Promise<WebhookRecord | null> {
    return this.timing.time('rotateWebhookSecret', () => this.inner.rotateWebhookSecret(environment, id, rotation, at, audit));
  }
  enableWebhook(environment: Environment, id: string, at: string, audit: AuditContext): Promise<WebhookRecord | null> {
    return this.timing.time('enableWebhook', () => this.inner.enableWebhook(environment, id, at, audit));
  }
  listDeliveries(webhookId: string, beforeId: number | null, limit: number): Promise<DeliveryRecord[]> {
    return this.timing.time('listDeliveries', () => this.inner.listDeliveries(webhookId, beforeId, limit));
  }
  findEventPayload(
    environment: Environment,
    webhookId: string,
    eventId: string,
  ): Promise<{ eventType: EventType; payload: string } | null> {
    return this.timing.time('findEventPayload', () => this.inner.findEventPayload(environment, webhookId, eventId));
  }
  insertRedelivery(delivery: NewRedelivery): Promise<DeliveryRecord> {
    return this.timing.time('insertRedelivery', () => this.inner.insertRedelivery(delivery));
  }
}

export class TimedWebhookDeliveryStore implements WebhookDeliveryStore {
  constructor(
    private readonly inner: WebhookDeliveryStore,
    private readonly timing: StoreTiming,
  ) {}

  webhooksToDispatch(): Promise<string[]> {
    return this.timing.time('webhooksToDispatch', () => this.inner.webhooksToDispatch());
  }
  dispatchWebhook(id: string, limit: number, at: string, dueAt: string): Promise<number> {
    return this.timing.time('dispatchWebhook', () => this.inner.dispatchWebhook(id, limit, at, dueAt));
  }
  claimDeliveries(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
    return this.timing.time('claimDeliveries', () => this.inner.claimDeliveries(owner, now, leaseUntil, limit));
  }
  recordAttempt(result: AttemptResult): Promise<{ applied: boolean; disabled: boolean }> {
    return this.timing.time('recordAttempt', () => this.inner.recordAttempt(result));
  }
  oldestPendingAt(): Promise<string | null> {
    return this.timing.time('oldestPendingAt', () => this.inner.oldestPendingAt());
  }
  pruneDeliveries(before: string, limit: number): Promise<number> {
    return this.timing.time('pruneDeliveries', () => this.inner.pruneDeliveries(before, limit));
  }
}
