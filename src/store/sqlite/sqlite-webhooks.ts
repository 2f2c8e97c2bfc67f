import type Database from 'better-sqlite3';
import type { AuditContext } from '../../audit/audit.js';
import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import { webhookPayload, type DeliveryRecord, type WebhookRecord } from '../../webhooks/webhook.js';
import type { NewRedelivery, SecretRotation, WebhookSecretResealStore, WebhookStore } from '../../webhooks/webhook-store.js';
import type { GroupCommit } from './group-commit.js';
import { webhookCreated, webhookDeleted, webhookEnabled, webhookSecretRotated } from '../../webhooks/webhook-consequences.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import { toEventRecord, type EventRow } from '../rows.js';
import type { SqliteHealth } from './sqlite-health.js';
import { toDelivery, toWebhook, type AttemptRow, type DeliveryRow, type WebhookRow } from '../webhook-rows.js';

/** Webhooks on SQLite: every change in group commit, audited (and so evented) in the same transaction. */
export class SqliteWebhooks implements WebhookStore, WebhookSecretResealStore {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
    private readonly consequences: SqliteConsequences,
  ) {
    this.statements = {
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM webhooks WHERE environment = ?'),
      insert: db.prepare(
        `INSERT INTO webhooks (id, environment, url, events, description, secret_ciphertext, created_at, after_sequence)
         VALUES (@id, @environment, @url, @events, @description, @secretCiphertext, @createdAt, (SELECT coalesce(max(sequence), 0) FROM events))`,
      ),
      list: db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE environment = ? ORDER BY created_at, id'),
      find: db.prepare<[string, string], WebhookRow>('SELECT * FROM webhooks WHERE environment = ? AND id = ?'),
      delete: db.prepare<[string, string]>('DELETE FROM webhooks WHERE environment = ? AND id = ?'),
      deleteAttempts: db.prepare<[string]>(
        'DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)',
      ),
      deleteDeliveries: db.prepare<[string]>('DELETE FROM webhook_deliveries WHERE webhook_id = ?'),
      rotate: db.prepare(
        `UPDATE webhooks SET secret_ciphertext = @secretCiphertext, previous_secret_ciphertext = @previousSecretCiphertext,
                previous_secret_expires_at = @previousSecretExpiresAt
         WHERE environment = @environment AND id = @id AND secret_ciphertext = @expectedSecretCiphertext`,
      ),
      enable: db.prepare<[string, string]>(
        `UPDATE webhooks SET disabled_at = NULL, failing_since = NULL, after_sequence = (SELECT coalesce(max(sequence), 0) FROM events)
         WHERE environment = ? AND id = ? AND disabled_at IS NOT NULL`,
      ),
      deliveries: db.prepare<[string, number, number], DeliveryRow>(
        'SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
      ),
      attempts: db.prepare<[string], AttemptRow>(
        'SELECT * FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt',
      ),
      event: db.prepare<[string, string], EventRow>('SELECT * FROM events WHERE environment = ? AND id = ?'),
      earlierDelivery: db.prepare<[string, string], { event_type: string; payload: string }>(
        'SELECT event_type, payload FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? ORDER BY id LIMIT 1',
      ),
      insertDelivery: db.prepare<[NewRedelivery], DeliveryRow>(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status, next_attempt_at, created_at, redelivery)
         VALUES (@webhookId, @eventId, @eventType, @environment, @payload, 'pending', @nextAttemptAt, @createdAt, 1) RETURNING *`,
      ),
      secrets: db.prepare<[], { id: string; secret_ciphertext: Buffer; previous_secret_ciphertext: Buffer | null }>(
        'SELECT id, secret_ciphertext, previous_secret_ciphertext FROM webhooks ORDER BY id',
      ),
      replaceCurrent: db.prepare<[Buffer, string, Buffer]>(
        'UPDATE webhooks SET secret_ciphertext = ? WHERE id = ? AND secret_ciphertext = ?',
      ),
      replacePrevious: db.prepare<[Buffer, string, Buffer]>(
        'UPDATE webhooks SET previous_secret_ciphertext = ? WHERE id = ? AND previous_secret_ciphertext = ?',
      ),
    };
  }

  async insertWebhook(
    webhook: Omit<WebhookRecord, 'afterSequence'>,
    audit: AuditContext,
    maxPerEnvironment: number,
  ): Promise<WebhookRecord | null> {
    return this.groupCommit.run(() => {
      if (this.statements.count.get(webhook.environment)!.n >= maxPerEnvironment) return null;
      this.statements.insert.run({ ...webhook, events: webhook.events === null ? null : JSON.stringify(webhook.events) });
      this.consequences.persist(webhookCreated(webhook.environment, webhook.id, webhook.createdAt, audit));
      return toWebhook(this.statements.find.get(webhook.environment, webhook.id)!);
    });
  }

  async listWebhooks(environment: Environment): Promise<WebhookRecord[]> {
    this.health.assertUsable();
    return this.statements.list.all(environment).map(toWebhook);
  }

  async findWebhook(environment: Environment, id: string): Promise<WebhookRecord | null> {
    this.health.assertUsable();
    const row = this.statements.find.get(environment, id);
    return row ? toWebhook(row) : null;
  }

  async deleteWebhook(environment: Environment, id: string, at: string, audit: AuditContext): Promise<boolean> {
    return this.groupCommit.run(() => {
      if (!this.statements.find.get(environment, id)) return false;
      this.statements.deleteAttempts.run(id);
      this.statements.deleteDeliveries.run(id);
      this.statements.delete.run(environment, id);
      this.consequences.persist(webhookDeleted(environment, id, at, audit));
      return true;
    });
  }

  async rotateWebhookSecret(
    environment: Environment,
    id: string,
    rotation: SecretRotation,
    at: string,
    audit: AuditContext,
  ): Promise<WebhookRecord | null> {
    return this.groupCommit.run(() => {
      if (this.statements.rotate.run({ environment, id, ...rotation }).changes === 0) return null;
      this.consequences.persist(webhookSecretRotated(environment, id, at, audit));
      return toWebhook(this.statements.find.get(environment, id)!);
    });
  }

  async enableWebhook(environment: Environment, id: string, at: string, audit: AuditContext): Promise<WebhookRecord | null> {
    return this.groupCommit.run(() => {
      if (this.statements.enable.run(environment, id).changes > 0) this.consequences.persist(webhookEnabled(environment, id, at, audit));
      const row = this.statements.find.get(environment, id);
      return row ? toWebhook(row) : null;
    });
  }

  async listDeliveries(webhookId: string, beforeId: number | null, limit: number): Promise<DeliveryRecord[]> {
    this.health.assertUsable();
    const rows = this.statements.deliveries.all(webhookId, beforeId ?? Number.MAX_SAFE_INTEGER, limit);
    const attempts = rows.length === 0 ? [] : this.statements.attempts.all(JSON.stringify(rows.map((row) => row.id)));
    return rows.map((row) => toDelivery(row, attempts));
  }

  async findEventPayload(
    environment: Environment,
    webhookId: string,
    eventId: string,
  ): Promise<{ eventType: EventType; payload: string } | null> {
    this.health.assertUsable();
    const event = this.statements.event.get(environment, eventId);
    if (event) {
      const record = toEventRecord(event);
      return { eventType: record.type, payload: webhookPayload(record) };
    }
    const earlier = this.statements.earlierDelivery.get(webhookId, eventId);
    return earlier ? { eventType: earlier.event_type as EventType, payload: earlier.payload } : null;
  }

  async insertRedelivery(delivery: NewRedelivery): Promise<DeliveryRecord> {
    return this.groupCommit.run(() => toDelivery(this.statements.insertDelivery.get(delivery)!, []));
  }

  async listWebhookSecrets(): Promise<{ id: string; secretCiphertext: Buffer; previousSecretCiphertext: Buffer | null }[]> {
    this.health.assertUsable();
    return this.statements.secrets
      .all()
      .map((row) => ({ id: row.id, secretCiphertext: row.secret_ciphertext, previousSecretCiphertext: row.previous_secret_ciphertext }));
  }

  async replaceWebhookSecretCiphertext(id: string, which: 'current' | 'previous', expected: Buffer, next: Buffer): Promise<boolean> {
    const statement = which === 'current' ? this.statements.replaceCurrent : this.statements.replacePrevious;
    return this.groupCommit.run(() => statement.run(next, id, expected).changes > 0);
  }
}
