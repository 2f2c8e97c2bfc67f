import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import { webhookPayload } from '../../webhooks/webhook.js';
import type { AttemptResult, ClaimedDelivery, WebhookDeliveryStore } from '../../webhooks/webhook-store.js';
import { toEventRecord, type EventRow } from '../rows.js';
import type { PostgresQueries } from './postgres-queries.js';
import { appendConsequencesIn, inTransaction } from './postgres-transaction.js';
import { webhookDisabled } from '../../webhooks/webhook-consequences.js';
import { asUnavailable } from './transient-errors.js';

interface ClaimedRow {
  id: number;
  webhook_id: string;
  event_id: string;
  payload: string;
  attempts: number;
  url: string;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: string | null;
}

const SQL = {
  toDispatch: `SELECT w.id FROM webhooks w WHERE w.disabled_at IS NULL
                 AND EXISTS (SELECT 1 FROM events e WHERE e.environment = w.environment AND e.sequence > w.after_sequence)`,
  // Two replicas never dispatch one webhook at once: the second skips it.
  lockWebhook: 'SELECT environment, events, after_sequence FROM webhooks WHERE id = $1 AND disabled_at IS NULL FOR UPDATE SKIP LOCKED',
  events: 'SELECT * FROM events WHERE environment = $1 AND sequence > $2 ORDER BY sequence LIMIT $3',
  insertDeliveries: `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status, next_attempt_at, created_at)
                     SELECT $1::text, e.id, e.type, $2::text, e.payload, 'pending', $7::timestamptz, $3::timestamptz
                     FROM unnest($4::text[], $5::text[], $6::text[]) AS e (id, type, payload)
                     ON CONFLICT (webhook_id, event_id) WHERE NOT redelivery DO NOTHING`,
  advance: 'UPDATE webhooks SET after_sequence = $1 WHERE id = $2',
  claim: `WITH claimed AS (
            UPDATE webhook_deliveries SET lease_owner = $1, lease_expires_at = $2
            WHERE id IN (SELECT id FROM webhook_deliveries
                         WHERE status = 'pending' AND next_attempt_at <= $3 AND (lease_expires_at IS NULL OR lease_expires_at < $3)
                         ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
            RETURNING *
          )
          SELECT d.id, d.webhook_id, d.event_id, d.payload, d.attempts, w.url, w.secret_ciphertext, w.previous_secret_ciphertext, w.previous_secret_expires_at
          FROM claimed d JOIN webhooks w ON w.id = d.webhook_id ORDER BY d.next_attempt_at`,
  // The webhook row first, then its deliveries: outcomes of one webhook's deliveries (which may disable it and fail them all) queue instead
  // of deadlocking.
  lockOwner: 'SELECT 1 FROM webhooks WHERE id = $1 FOR UPDATE',
  held: "SELECT 1 FROM webhook_deliveries WHERE id = $1 AND lease_owner = $2 AND status = 'pending' FOR UPDATE",
  insertAttempt: `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt)
                  VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  settle:
    'UPDATE webhook_deliveries SET status = $2, attempts = $3, next_attempt_at = $4, lease_owner = NULL, lease_expires_at = NULL WHERE id = $1',
  succeeded: 'UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL',
  failing:
    'UPDATE webhooks SET failing_since = coalesce(failing_since, $1) WHERE id = $2 RETURNING environment, failing_since, disabled_at',
  disable: 'UPDATE webhooks SET disabled_at = $1 WHERE id = $2',
  failPending:
    "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL WHERE webhook_id = $1 AND status = 'pending'",
  oldestPending: "SELECT min(created_at) AS at FROM webhook_deliveries WHERE status = 'pending'",
  pruneAttempts: `WITH pruned AS (
                    DELETE FROM webhook_delivery_attempts WHERE (delivery_id, attempt) IN (
                      SELECT delivery_id, attempt FROM webhook_delivery_attempts WHERE at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
                    RETURNING 1
                  ), bare AS (
                    DELETE FROM webhook_deliveries WHERE id IN (
                      SELECT id FROM webhook_deliveries d WHERE status <> 'pending' AND created_at < $1
                        AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) LIMIT $2)
                  )
                  SELECT count(*)::int AS n FROM pruned`,
} as const;

/**
 * The delivery side of webhooks on PostgreSQL: `FOR UPDATE SKIP LOCKED` so
 * that replicas dispatch and claim side by side without ever taking the same
 * webhook or delivery.
 */
export class PostgresWebhookDeliveries implements WebhookDeliveryStore {
  constructor(private readonly queries: PostgresQueries) {}

  private query<Row extends object>(name: keyof typeof SQL, values: unknown[]) {
    return this.queries.queryText<Row & Record<string, unknown>>({ name: `ugs_deliveries_${name}`, text: SQL[name], values });
  }

  async webhooksToDispatch(): Promise<string[]> {
    return (await this.query<{ id: string }>('toDispatch', [])).rows.map((row) => row.id);
  }

  async dispatchWebhook(id: string, limit: number, at: string, dueAt: string): Promise<number> {
    return inTransaction(this.queries, async (tx) => {
      const webhook = (await tx<{ environment: string; events: EventType[] | null; after_sequence: string }>(SQL.lockWebhook, [id]))
        .rows[0];
      if (!webhook) return 0;
      const events = (
        await tx<EventRow & Record<string, unknown>>(SQL.events, [webhook.environment, webhook.after_sequence, limit])
      ).rows.map(toEventRecord);
      const types = webhook.events === null ? null : new Set(webhook.events);
      const wanted = events.filter((event) => !types || types.has(event.type));
      if (wanted.length > 0) {
        await tx(SQL.insertDeliveries, [
          id,
          webhook.environment,
          at,
          wanted.map((e) => e.id),
          wanted.map((e) => e.type),
          wanted.map(webhookPayload),
          dueAt,
        ]);
      }
      if (events.length > 0) await tx(SQL.advance, [events.at(-1)!.sequence, id]);
      return events.length;
    });
  }

  async claimDeliveries(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
    // One statement: the claim commits (or not) as a whole; not retried on a lost connection (the lease expires instead).
    const { rows } = await this.queries.pool
      .query<ClaimedRow>({ name: 'ugs_deliveries_claim', text: SQL.claim, values: [owner, leaseUntil, now, limit] })
      .catch((error: unknown) => {
        throw asUnavailable(error);
      });
    return rows.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      eventId: row.event_id,
      payload: row.payload,
      attempts: row.attempts,
      url: row.url,
      secretCiphertext: row.secret_ciphertext,
      previousSecretCiphertext: row.previous_secret_ciphertext,
      previousSecretExpiresAt: row.previous_secret_expires_at,
    }));
  }

  async recordAttempt(result: AttemptResult): Promise<{ applied: boolean; disabled: boolean }> {
    return inTransaction(this.queries, async (tx) => {
      await tx(SQL.lockOwner, [result.webhookId]);
      // Our lease expired and another worker took the delivery: its outcome, not ours, counts.
      if ((await tx(SQL.held, [result.deliveryId, result.leaseOwner])).rowCount === 0) return { applied: false, disabled: false };
      const a = result.attempt;
      await tx(SQL.insertAttempt, [result.deliveryId, a.attempt, a.at, a.statusCode, a.durationMs, a.error, a.responseExcerpt]);
      await tx(SQL.settle, [
        result.deliveryId,
        result.outcome === 'retrying' ? 'pending' : result.outcome,
        a.attempt,
        result.nextAttemptAt,
      ]);
      if (result.outcome === 'succeeded') {
        await tx(SQL.succeeded, [result.webhookId]);
        return { applied: true, disabled: false };
      }
      const webhook = (
        await tx<{ environment: string; failing_since: string; disabled_at: string | null }>(SQL.failing, [a.at, result.webhookId])
      ).rows[0];
      if (!webhook || webhook.disabled_at !== null || Date.parse(webhook.failing_since) > Date.parse(result.disableIfFailingSince))
        return { applied: true, disabled: false };
      await tx(SQL.disable, [a.at, result.webhookId]);
      await tx(SQL.failPending, [result.webhookId]);
      await appendConsequencesIn(tx, webhookDisabled(webhook.environment as Environment, result.webhookId, a.at));
      return { applied: true, disabled: true };
    });
  }

  async oldestPendingAt(): Promise<string | null> {
    return (await this.query<{ at: string | null }>('oldestPending', [])).rows[0]?.at ?? null;
  }

  async pruneDeliveries(before: string, limit: number): Promise<number> {
    return (await this.query<{ n: number }>('pruneAttempts', [before, limit])).rows[0]?.n ?? 0;
  }
}
