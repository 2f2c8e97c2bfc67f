import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import { webhookPayload, type DeliveryRecord, type WebhookRecord } from '../../webhooks/webhook.js';
import type { NewRedelivery, SecretRotation, WebhookSecretResealStore, WebhookStore } from '../../webhooks/webhook-store.js';
import { toEventRecord, type EventRow } from '../rows.js';
import { toDelivery, toWebhook, type AttemptRow, type DeliveryRow, type WebhookRow } from '../webhook-rows.js';
import { append, run, type SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

/** A new webhook's cursor, and an enabled one's: the highest event sequence stored. */
const MAX_SEQUENCE = '(SELECT coalesce(max(sequence), 0) FROM events)';

/**
 * Taken by webhook creation on PostgreSQL: two replicas creating at once
 * cannot both pass the per-environment cap. SQLite writes one at a time.
 */
const CAP_LOCK = statement('lockWebhookCap', { sqlite: '', postgres: 'SELECT pg_advisory_xact_lock(7365013)' });
// `events` is JSON text as a parameter on both (PostgreSQL's JSONB column takes it); toWebhook reads either shape back.
const INSERT = statement<WebhookRow>(
  'insertWebhook',
  `INSERT INTO webhooks (id, environment, url, events, description, secret_ciphertext, created_at, after_sequence)
   SELECT @id, @environment, @url, @events, @description, @secretCiphertext, @createdAt, ${MAX_SEQUENCE}
   WHERE (SELECT count(*) FROM webhooks WHERE environment = @environment) < @maxPerEnvironment
   RETURNING *`,
);
const LIST = statement<WebhookRow>('listWebhooks', 'SELECT * FROM webhooks WHERE environment = @environment ORDER BY created_at, id');
const FIND = statement<WebhookRow>('findWebhook', 'SELECT * FROM webhooks WHERE environment = @environment AND id = @id');
const DELETE = statement<{ id: string }>(
  'deleteWebhook',
  'DELETE FROM webhooks WHERE environment = @environment AND id = @id RETURNING id',
);
const DELETE_ATTEMPTS = statement(
  'deleteWebhookAttempts',
  'DELETE FROM webhook_delivery_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = @id)',
);
const DELETE_DELIVERIES = statement('deleteWebhookDeliveries', 'DELETE FROM webhook_deliveries WHERE webhook_id = @id');
const ROTATE = statement<WebhookRow>(
  'rotateWebhookSecret',
  `UPDATE webhooks SET secret_ciphertext = @secretCiphertext, previous_secret_ciphertext = @previousSecretCiphertext,
          previous_secret_expires_at = @previousSecretExpiresAt
   WHERE environment = @environment AND id = @id AND secret_ciphertext = @expectedSecretCiphertext
   RETURNING *`,
);
const ENABLE = statement<WebhookRow>(
  'enableWebhook',
  `UPDATE webhooks SET disabled_at = NULL, failing_since = NULL, after_sequence = ${MAX_SEQUENCE}
   WHERE environment = @environment AND id = @id AND disabled_at IS NOT NULL
   RETURNING *`,
);
const DELIVERIES = statement<DeliveryRow>(
  'listWebhookDeliveries',
  'SELECT * FROM webhook_deliveries WHERE webhook_id = @webhookId AND id < @beforeId ORDER BY id DESC LIMIT @limit',
);
// The page's deliveries are this webhook's ids from `oldest` to `newest`: no list of ids to pass.
const ATTEMPTS = statement<AttemptRow>(
  'listWebhookDeliveryAttempts',
  `SELECT * FROM webhook_delivery_attempts
   WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = @webhookId AND id BETWEEN @oldest AND @newest)
   ORDER BY delivery_id, attempt`,
);
const EVENT = statement<EventRow>('findWebhookEvent', 'SELECT * FROM events WHERE environment = @environment AND id = @eventId');
const EARLIER_DELIVERY = statement<{ event_type: string; payload: string }>(
  'findEarlierDelivery',
  'SELECT event_type, payload FROM webhook_deliveries WHERE webhook_id = @webhookId AND event_id = @eventId ORDER BY id LIMIT 1',
);
const INSERT_REDELIVERY = statement<DeliveryRow>(
  'insertRedelivery',
  `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status, next_attempt_at, created_at, redelivery)
   VALUES (@webhookId, @eventId, @eventType, @environment, @payload, 'pending', @nextAttemptAt, @createdAt, true)
   RETURNING *`,
);
const SECRETS = statement<{ id: string; secret_ciphertext: Buffer; previous_secret_ciphertext: Buffer | null }>(
  'listWebhookSecrets',
  'SELECT id, secret_ciphertext, previous_secret_ciphertext FROM webhooks ORDER BY id',
);
const REPLACE_SECRET = {
  current: statement<{ id: string }>(
    'replaceWebhookSecret',
    'UPDATE webhooks SET secret_ciphertext = @next WHERE id = @id AND secret_ciphertext = @expected RETURNING id',
  ),
  previous: statement<{ id: string }>(
    'replacePreviousWebhookSecret',
    'UPDATE webhooks SET previous_secret_ciphertext = @next WHERE id = @id AND previous_secret_ciphertext = @expected RETURNING id',
  ),
};

/**
 * Webhooks, written once for both databases: each change and the
 * consequences the service hands it (audit record and event) in one
 * transaction, appended only when it changed something.
 */
export class SqlWebhooks implements WebhookStore, WebhookSecretResealStore {
  constructor(private readonly db: SqlDatabase) {}

  insertWebhook(
    webhook: Omit<WebhookRecord, 'afterSequence'>,
    consequences: WriteConsequences,
    maxPerEnvironment: number,
  ): Promise<WebhookRecord | null> {
    const parameters = { ...webhook, events: webhook.events === null ? null : JSON.stringify(webhook.events), maxPerEnvironment };
    return this.db.transaction(function* () {
      yield* run(CAP_LOCK);
      const [row] = yield* run(INSERT, parameters);
      if (!row) return null;
      yield* append({ consequences });
      return toWebhook(row);
    });
  }

  async listWebhooks(environment: Environment): Promise<WebhookRecord[]> {
    return (await this.db.all(LIST, { environment })).map(toWebhook);
  }

  async findWebhook(environment: Environment, id: string): Promise<WebhookRecord | null> {
    const row = await this.db.first(FIND, { environment, id });
    return row ? toWebhook(row) : null;
  }

  deleteWebhook(environment: Environment, id: string, consequences: WriteConsequences): Promise<boolean> {
    return this.db.transaction(function* () {
      if ((yield* run(DELETE, { environment, id })).length === 0) return false;
      yield* run(DELETE_ATTEMPTS, { id });
      yield* run(DELETE_DELIVERIES, { id });
      yield* append({ consequences });
      return true;
    });
  }

  async rotateWebhookSecret(
    environment: Environment,
    id: string,
    rotation: SecretRotation,
    consequences: WriteConsequences,
  ): Promise<WebhookRecord | null> {
    const [row] = await this.db.write(ROTATE, { environment, id, ...rotation }, { consequences });
    return row ? toWebhook(row) : null;
  }

  async enableWebhook(environment: Environment, id: string, consequences: WriteConsequences): Promise<WebhookRecord | null> {
    const [enabled] = await this.db.write(ENABLE, { environment, id }, { consequences });
    // Not disabled (or unknown): returned as it is, nothing appended.
    return enabled ? toWebhook(enabled) : this.findWebhook(environment, id);
  }

  async listDeliveries(webhookId: string, beforeId: number | null, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.db.all(DELIVERIES, { webhookId, beforeId: beforeId ?? Number.MAX_SAFE_INTEGER, limit });
    if (rows.length === 0) return [];
    const attempts = await this.db.all(ATTEMPTS, { webhookId, oldest: rows.at(-1)!.id, newest: rows[0]!.id });
    return rows.map((row) => toDelivery(row, attempts));
  }

  async findEventPayload(
    environment: Environment,
    webhookId: string,
    eventId: string,
  ): Promise<{ eventType: EventType; payload: string } | null> {
    const event = await this.db.first(EVENT, { environment, eventId });
    if (event) {
      const record = toEventRecord(event);
      return { eventType: record.type, payload: webhookPayload(record) };
    }
    const earlier = await this.db.first(EARLIER_DELIVERY, { webhookId, eventId });
    return earlier ? { eventType: earlier.event_type as EventType, payload: earlier.payload } : null;
  }

  async insertRedelivery(delivery: NewRedelivery): Promise<DeliveryRecord> {
    const [row] = await this.db.write(INSERT_REDELIVERY, { ...delivery });
    return toDelivery(row!, []);
  }

  async listWebhookSecrets(): Promise<{ id: string; secretCiphertext: Buffer; previousSecretCiphertext: Buffer | null }[]> {
    return (await this.db.all(SECRETS)).map((row) => ({
      id: row.id,
      secretCiphertext: row.secret_ciphertext,
      previousSecretCiphertext: row.previous_secret_ciphertext,
    }));
  }

  async replaceWebhookSecretCiphertext(id: string, which: 'current' | 'previous', expected: Buffer, next: Buffer): Promise<boolean> {
    return (await this.db.write(REPLACE_SECRET[which], { id, expected, next })).length > 0;
  }
}
