import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import { webhookPayload } from '../../webhooks/webhook.js';
import type { AttemptResult, ClaimedDelivery, WebhookDeliveryStore } from '../../webhooks/webhook-store.js';
import { toEventRecord, type EventRow } from '../rows.js';
import { append, run, type SqlDatabase } from './sql-database.js';
import { statement, type Dialect } from './sql-statement.js';

/**
 * A statement that locks the rows it reads on PostgreSQL, where replicas work
 * side by side (`SKIP LOCKED`: another replica's rows are passed over, not
 * waited for); SQLite has one writer at a time, across processes, and needs none.
 */
function rowLocking(text: (lock: string) => string, lock: 'FOR UPDATE' | 'FOR UPDATE SKIP LOCKED'): Record<Dialect, string> {
  return { sqlite: text(''), postgres: text(` ${lock}`) };
}

interface ClaimedRow {
  id: number;
  webhook_id: string;
  environment: string;
  event_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: string | null;
}

const DUE = `status = 'pending' AND next_attempt_at <= @now AND (lease_expires_at IS NULL OR lease_expires_at < @now)`;

const TO_DISPATCH = statement<{ id: string }>(
  'webhooksToDispatch',
  `SELECT w.id FROM webhooks w WHERE w.disabled_at IS NULL
     AND EXISTS (SELECT 1 FROM events e WHERE e.environment = w.environment AND e.sequence > w.after_sequence)`,
);
// Two replicas never dispatch one webhook at once: the second skips it.
const LOCK_WEBHOOK = statement<{ environment: string; events: string | EventType[] | null; after_sequence: number }>(
  'lockWebhookToDispatch',
  rowLocking(
    (lock) => `SELECT environment, events, after_sequence FROM webhooks WHERE id = @id AND disabled_at IS NULL${lock}`,
    'FOR UPDATE SKIP LOCKED',
  ),
);
const EVENTS = statement<EventRow>(
  'eventsToDispatch',
  'SELECT * FROM events WHERE environment = @environment AND sequence > @afterSequence ORDER BY sequence LIMIT @limit',
);
// The deliveries of one dispatch as one JSON array parameter (id, type, payload each), in event order.
const insertDeliveries = (elements: string) =>
  `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status, next_attempt_at, created_at)
   SELECT @webhookId, e.value ->> 'id', e.value ->> 'type', @environment, e.value ->> 'payload', 'pending', @dueAt, @at
   FROM ${elements} AS e WHERE true
   ON CONFLICT DO NOTHING`;
const INSERT_DELIVERIES = statement('insertWebhookDeliveries', {
  sqlite: insertDeliveries('json_each(@deliveries)'),
  postgres: insertDeliveries('jsonb_array_elements(@deliveries::jsonb)'),
});
const ADVANCE = statement('advanceWebhookCursor', 'UPDATE webhooks SET after_sequence = @sequence WHERE id = @id');
const ANY_DUE = statement<{ one: number }>('anyDeliveryDue', `SELECT 1 AS one FROM webhook_deliveries WHERE ${DUE} LIMIT 1`);
const CLAIM = statement<ClaimedRow>(
  'claimDeliveries',
  rowLocking(
    (lock) => `UPDATE webhook_deliveries SET lease_owner = @owner, lease_expires_at = @leaseUntil
               WHERE id IN (SELECT id FROM webhook_deliveries WHERE ${DUE} ORDER BY next_attempt_at LIMIT @limit${lock})
               RETURNING id, webhook_id, environment, event_id, payload, attempts,
                 (SELECT w.url FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id) AS url,
                 (SELECT w.secret_ciphertext FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id) AS secret_ciphertext,
                 (SELECT w.previous_secret_ciphertext FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id) AS previous_secret_ciphertext,
                 (SELECT w.previous_secret_expires_at FROM webhooks w WHERE w.id = webhook_deliveries.webhook_id) AS previous_secret_expires_at`,
    'FOR UPDATE SKIP LOCKED',
  ),
);
// The webhook row first, then its delivery: outcomes of one webhook's deliveries (which may disable it and fail them all) queue instead
// of deadlocking.
const LOCK_OWNER = statement('lockDeliveryWebhook', { sqlite: '', postgres: 'SELECT 1 FROM webhooks WHERE id = @webhookId FOR UPDATE' });
const HELD = statement<{ one: number }>(
  'heldDelivery',
  rowLocking(
    (lock) => `SELECT 1 AS one FROM webhook_deliveries WHERE id = @deliveryId AND lease_owner = @leaseOwner AND status = 'pending'${lock}`,
    'FOR UPDATE',
  ),
);
const INSERT_ATTEMPT = statement(
  'insertDeliveryAttempt',
  `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt)
   VALUES (@deliveryId, @attempt, @at, @statusCode, @durationMs, @error, @responseExcerpt)`,
);
const SETTLE = statement(
  'settleDelivery',
  `UPDATE webhook_deliveries SET status = @status, attempts = @attempt, next_attempt_at = @nextAttemptAt, lease_owner = NULL, lease_expires_at = NULL
   WHERE id = @deliveryId`,
);
const SUCCEEDED = statement(
  'webhookSucceeded',
  'UPDATE webhooks SET failing_since = NULL WHERE id = @webhookId AND failing_since IS NOT NULL',
);
const FAILING = statement<{ failing_since: string; disabled_at: string | null }>(
  'webhookFailing',
  'UPDATE webhooks SET failing_since = coalesce(failing_since, @at) WHERE id = @webhookId RETURNING failing_since, disabled_at',
);
const DISABLE = statement('disableWebhook', 'UPDATE webhooks SET disabled_at = @at WHERE id = @webhookId');
const FAIL_PENDING = statement(
  'failPendingDeliveries',
  `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL
   WHERE webhook_id = @webhookId AND status = 'pending'`,
);
const OLDEST_PENDING = statement<{ at: string | null }>(
  'oldestPendingDelivery',
  "SELECT min(created_at) AS at FROM webhook_deliveries WHERE status = 'pending'",
);
const ANY_OLD = statement<{ one: number }>('anyOldAttempt', 'SELECT 1 AS one FROM webhook_delivery_attempts WHERE at < @before LIMIT 1');
const PRUNE_ATTEMPTS = statement<{ one: number }>(
  'pruneDeliveryAttempts',
  rowLocking(
    (lock) => `DELETE FROM webhook_delivery_attempts WHERE (delivery_id, attempt) IN (
                 SELECT delivery_id, attempt FROM webhook_delivery_attempts WHERE at < @before ORDER BY at LIMIT @limit${lock})
               RETURNING 1 AS one`,
    'FOR UPDATE SKIP LOCKED',
  ),
);
const PRUNE_DELIVERIES = statement(
  'pruneBareDeliveries',
  `DELETE FROM webhook_deliveries WHERE id IN (
     SELECT id FROM webhook_deliveries d WHERE status <> 'pending' AND created_at < @before
       AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) LIMIT @limit)`,
);

/**
 * The delivery side of webhooks, written once for both databases. Exactly
 * one worker holds a delivery: on SQLite one writer at a time (across
 * processes, UGS_WORKERS) runs a claim's UPDATE … RETURNING; on PostgreSQL
 * `FOR UPDATE SKIP LOCKED` lets replicas dispatch and claim side by side
 * without ever taking the same webhook or delivery.
 */
export class SqlWebhookDeliveries implements WebhookDeliveryStore {
  constructor(private readonly db: SqlDatabase) {}

  async webhooksToDispatch(): Promise<string[]> {
    return (await this.db.all(TO_DISPATCH)).map((row) => row.id);
  }

  dispatchWebhook(id: string, limit: number, at: string, dueAt: string): Promise<number> {
    return this.db.transaction(function* () {
      const [webhook] = yield* run(LOCK_WEBHOOK, { id });
      if (!webhook) return 0;
      const { environment } = webhook;
      const events = (yield* run(EVENTS, { environment, afterSequence: webhook.after_sequence, limit })).map(toEventRecord);
      const subscribed = typeof webhook.events === 'string' ? (JSON.parse(webhook.events) as EventType[]) : webhook.events;
      const types = subscribed === null ? null : new Set(subscribed);
      const wanted = events.filter((event) => !types || types.has(event.type));
      if (wanted.length > 0) {
        const deliveries = JSON.stringify(wanted.map((event) => ({ id: event.id, type: event.type, payload: webhookPayload(event) })));
        yield* run(INSERT_DELIVERIES, { webhookId: id, environment, deliveries, dueAt, at });
      }
      if (events.length > 0) yield* run(ADVANCE, { sequence: events.at(-1)!.sequence, id });
      return events.length;
    });
  }

  async claimDeliveries(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
    // An idle poll is one index probe: nothing is written (on SQLite, the write lock shared with every process is not taken).
    if (!(await this.db.first(ANY_DUE, { now }))) return [];
    // One statement: the claim commits (or not) as a whole. Should its answer be lost, the leases it took expire.
    const rows = await this.db.write(CLAIM, { owner, leaseUntil, now, limit });
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      environment: row.environment as Environment,
      eventId: row.event_id,
      payload: row.payload,
      attempts: row.attempts,
      url: row.url,
      secretCiphertext: row.secret_ciphertext,
      previousSecretCiphertext: row.previous_secret_ciphertext,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    }));
  }

  recordAttempt(result: AttemptResult): Promise<{ applied: boolean; disabled: boolean }> {
    const { deliveryId, webhookId, leaseOwner, attempt } = result;
    return this.db.transaction(function* () {
      yield* run(LOCK_OWNER, { webhookId });
      // Our lease expired and another worker took the delivery: its outcome, not ours, counts.
      if ((yield* run(HELD, { deliveryId, leaseOwner })).length === 0) return { applied: false, disabled: false };
      yield* run(INSERT_ATTEMPT, { deliveryId, ...attempt });
      const status = result.outcome === 'retrying' ? 'pending' : result.outcome;
      yield* run(SETTLE, { deliveryId, status, attempt: attempt.attempt, nextAttemptAt: result.nextAttemptAt });
      if (result.outcome === 'succeeded') {
        yield* run(SUCCEEDED, { webhookId });
        return { applied: true, disabled: false };
      }
      const [webhook] = yield* run(FAILING, { at: attempt.at, webhookId });
      if (!webhook || webhook.disabled_at !== null || Date.parse(webhook.failing_since) > Date.parse(result.disableIfFailingSince))
        return { applied: true, disabled: false };
      yield* run(DISABLE, { at: attempt.at, webhookId });
      yield* run(FAIL_PENDING, { webhookId });
      yield* append({ consequences: result.ifDisabled });
      return { applied: true, disabled: true };
    });
  }

  async oldestPendingAt(): Promise<string | null> {
    return (await this.db.first(OLDEST_PENDING))?.at ?? null;
  }

  async pruneDeliveries(before: string, limit: number): Promise<number> {
    // Most passes find nothing old: one index probe, no write.
    if (!(await this.db.first(ANY_OLD, { before }))) return 0;
    return this.db.transaction(function* () {
      const pruned = (yield* run(PRUNE_ATTEMPTS, { before, limit })).length;
      yield* run(PRUNE_DELIVERIES, { before, limit });
      return pruned;
    });
  }
}
