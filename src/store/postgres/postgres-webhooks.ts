import type { AuditContext } from '../../audit/audit.js';
import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import { webhookPayload, type DeliveryRecord, type WebhookRecord } from '../../webhooks/webhook.js';
import type { NewRedelivery, SecretRotation, WebhookSecretResealStore, WebhookStore } from '../../webhooks/webhook-store.js';
import { toEventRecord, type EventRow } from '../rows.js';
import type { PostgresQueries } from './postgres-queries.js';
import { appendConsequencesIn, inTransaction } from './postgres-transaction.js';
import { webhookCreated, webhookDeleted, webhookEnabled, webhookSecretRotated } from '../../webhooks/webhook-consequences.js';
import { toDelivery, toWebhook, type AttemptRow, type DeliveryRow, type WebhookRow } from '../webhook-rows.js';

/** Taken by webhook creation: two replicas creating at once cannot both pass the per-environment cap. */
const WEBHOOK_CAP_LOCK = 'SELECT pg_advisory_xact_lock(7365013)';

const MAX_SEQUENCE = '(SELECT coalesce(max(sequence), 0) FROM events)';

const SQL = {
  count: 'SELECT count(*)::int AS n FROM webhooks WHERE environment = $1',
  insert: `INSERT INTO webhooks (id, environment, url, events, description, secret_ciphertext, created_at, after_sequence)
           VALUES ($1, $2, $3, $4, $5, $6, $7, ${MAX_SEQUENCE}) RETURNING *`,
  list: 'SELECT * FROM webhooks WHERE environment = $1 ORDER BY created_at, id',
  find: 'SELECT * FROM webhooks WHERE environment = $1 AND id = $2',
  delete: 'DELETE FROM webhooks WHERE environment = $1 AND id = $2 RETURNING id',
  deleteAttempts: 'DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = $1)',
  deleteDeliveries: 'DELETE FROM webhook_deliveries WHERE webhook_id = $1',
  rotate: `UPDATE webhooks SET secret_ciphertext = $3, previous_secret_ciphertext = $4, previous_secret_expires_at = $5
           WHERE environment = $1 AND id = $2 AND secret_ciphertext = $6 RETURNING *`,
  enable: `UPDATE webhooks SET disabled_at = NULL, failing_since = NULL, after_sequence = ${MAX_SEQUENCE}
           WHERE environment = $1 AND id = $2 AND disabled_at IS NOT NULL RETURNING *`,
  deliveries: 'SELECT * FROM webhook_deliveries WHERE webhook_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3',
  attempts: 'SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, attempt',
  event: 'SELECT * FROM events WHERE environment = $1 AND id = $2',
  earlierDelivery: 'SELECT event_type, payload FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2 ORDER BY id LIMIT 1',
  insertDelivery: `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status, next_attempt_at, created_at, redelivery)
                   VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, true) RETURNING *`,
  secrets: 'SELECT id, secret_ciphertext, previous_secret_ciphertext FROM webhooks ORDER BY id',
  replaceCurrent: 'UPDATE webhooks SET secret_ciphertext = $1 WHERE id = $2 AND secret_ciphertext = $3',
  replacePrevious: 'UPDATE webhooks SET previous_secret_ciphertext = $1 WHERE id = $2 AND previous_secret_ciphertext = $3',
} as const;

/** Webhooks on PostgreSQL: each change and its audit record (and event) in one transaction. */
export class PostgresWebhooks implements WebhookStore, WebhookSecretResealStore {
  constructor(private readonly queries: PostgresQueries) {}

  private query<Row extends object>(name: keyof typeof SQL, values: unknown[]) {
    return this.queries.queryText<Row & Record<string, unknown>>({ name: `ugs_webhooks_${name}`, text: SQL[name], values });
  }

  async insertWebhook(
    webhook: Omit<WebhookRecord, 'afterSequence'>,
    audit: AuditContext,
    maxPerEnvironment: number,
  ): Promise<WebhookRecord | null> {
    return inTransaction(this.queries, async (tx) => {
      await tx(WEBHOOK_CAP_LOCK, []);
      const { n } = (await tx<{ n: number }>(SQL.count, [webhook.environment])).rows[0]!;
      if (n >= maxPerEnvironment) return null;
      const events = webhook.events === null ? null : JSON.stringify(webhook.events);
      const values = [
        webhook.id,
        webhook.environment,
        webhook.url,
        events,
        webhook.description,
        webhook.secretCiphertext,
        webhook.createdAt,
      ];
      const row = (await tx<WebhookRow & Record<string, unknown>>(SQL.insert, values)).rows[0]!;
      await appendConsequencesIn(tx, webhookCreated(webhook.environment, webhook.id, webhook.createdAt, audit));
      return toWebhook(row);
    });
  }

  async listWebhooks(environment: Environment): Promise<WebhookRecord[]> {
    return (await this.query<WebhookRow>('list', [environment])).rows.map(toWebhook);
  }

  async findWebhook(environment: Environment, id: string): Promise<WebhookRecord | null> {
    const row = (await this.query<WebhookRow>('find', [environment, id])).rows[0];
    return row ? toWebhook(row) : null;
  }

  async deleteWebhook(environment: Environment, id: string, at: string, audit: AuditContext): Promise<boolean> {
    return inTransaction(this.queries, async (tx) => {
      if ((await tx(SQL.delete, [environment, id])).rowCount === 0) return false;
      await tx(SQL.deleteAttempts, [id]);
      await tx(SQL.deleteDeliveries, [id]);
      await appendConsequencesIn(tx, webhookDeleted(environment, id, at, audit));
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
    return inTransaction(this.queries, async (tx) => {
      const values = [
        environment,
        id,
        rotation.secretCiphertext,
        rotation.previousSecretCiphertext,
        rotation.previousSecretExpiresAt,
        rotation.expectedSecretCiphertext,
      ];
      const row = (await tx<WebhookRow & Record<string, unknown>>(SQL.rotate, values)).rows[0];
      if (!row) return null;
      await appendConsequencesIn(tx, webhookSecretRotated(environment, id, at, audit));
      return toWebhook(row);
    });
  }

  async enableWebhook(environment: Environment, id: string, at: string, audit: AuditContext): Promise<WebhookRecord | null> {
    return inTransaction(this.queries, async (tx) => {
      const enabled = (await tx<WebhookRow & Record<string, unknown>>(SQL.enable, [environment, id])).rows[0];
      if (enabled) {
        await appendConsequencesIn(tx, webhookEnabled(environment, id, at, audit));
        return toWebhook(enabled);
      }
      const row = (await tx<WebhookRow & Record<string, unknown>>(SQL.find, [environment, id])).rows[0];
      return row ? toWebhook(row) : null;
    });
  }

  async listDeliveries(webhookId: string, beforeId: number | null, limit: number): Promise<DeliveryRecord[]> {
    const rows = (await this.query<DeliveryRow>('deliveries', [webhookId, beforeId ?? Number.MAX_SAFE_INTEGER, limit])).rows;
    const attempts = rows.length === 0 ? [] : (await this.query<AttemptRow>('attempts', [rows.map((row) => row.id)])).rows;
    return rows.map((row) => toDelivery(row, attempts));
  }

  async findEventPayload(
    environment: Environment,
    webhookId: string,
    eventId: string,
  ): Promise<{ eventType: EventType; payload: string } | null> {
    const event = (await this.query<EventRow>('event', [environment, eventId])).rows[0];
    if (event) {
      const record = toEventRecord(event);
      return { eventType: record.type, payload: webhookPayload(record) };
    }
    const earlier = (await this.query<{ event_type: string; payload: string }>('earlierDelivery', [webhookId, eventId])).rows[0];
    return earlier ? { eventType: earlier.event_type as EventType, payload: earlier.payload } : null;
  }

  async insertRedelivery(d: NewRedelivery): Promise<DeliveryRecord> {
    const row = (
      await this.query<DeliveryRow>('insertDelivery', [
        d.webhookId,
        d.eventId,
        d.eventType,
        d.environment,
        d.payload,
        d.nextAttemptAt,
        d.createdAt,
      ])
    ).rows[0]!;
    return toDelivery(row, []);
  }

  async listWebhookSecrets(): Promise<{ id: string; secretCiphertext: Buffer; previousSecretCiphertext: Buffer | null }[]> {
    const rows = (await this.query<{ id: string; secret_ciphertext: Buffer; previous_secret_ciphertext: Buffer | null }>('secrets', []))
      .rows;
    return rows.map((row) => ({
      id: row.id,
      secretCiphertext: row.secret_ciphertext,
      previousSecretCiphertext: row.previous_secret_ciphertext,
    }));
  }

  async replaceWebhookSecretCiphertext(id: string, which: 'current' | 'previous', expected: Buffer, next: Buffer): Promise<boolean> {
    return ((await this.query(which === 'current' ? 'replaceCurrent' : 'replacePrevious', [next, id, expected])).rowCount ?? 0) > 0;
  }
}
