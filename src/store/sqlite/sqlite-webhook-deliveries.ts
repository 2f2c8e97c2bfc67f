import type Database from 'better-sqlite3';
import type { Environment } from '../../kernel/environment.js';
import type { EventType } from '../../events/event.js';
import { webhookPayload } from '../../webhooks/webhook.js';
import type { AttemptResult, ClaimedDelivery, WebhookDeliveryStore } from '../../webhooks/webhook-store.js';
import type { GroupCommit } from './group-commit.js';
import { webhookDisabled } from '../../webhooks/webhook-consequences.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import { toEventRecord, type EventRow } from '../rows.js';
import type { SqliteHealth } from './sqlite-health.js';

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

/**
 * The delivery side of webhooks on SQLite. Each step is one write
 * transaction through group commit; SQLite has one writer at a time across
 * processes (UGS_WORKERS), so a claim's UPDATE … RETURNING hands a delivery
 * to one worker only.
 */
export class SqliteWebhookDeliveries implements WebhookDeliveryStore {
  private readonly statements;

  constructor(
    db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
    private readonly consequences: SqliteConsequences,
  ) {
    this.statements = {
      toDispatch: db.prepare<[], { id: string }>(
        `SELECT w.id FROM webhooks w WHERE w.disabled_at IS NULL
           AND EXISTS (SELECT 1 FROM events e WHERE e.environment = w.environment AND e.sequence > w.after_sequence)`,
      ),
      webhook: db.prepare<[string], { environment: string; events: string | null; after_sequence: number }>(
        'SELECT environment, events, after_sequence FROM webhooks WHERE id = ? AND disabled_at IS NULL',
      ),
      events: db.prepare<[string, number, number], EventRow>(
        'SELECT * FROM events WHERE environment = ? AND sequence > ? ORDER BY sequence LIMIT ?',
      ),
      insertDelivery: db.prepare(
        `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, environment, payload, status, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT DO NOTHING`,
      ),
      advance: db.prepare<[number, string]>('UPDATE webhooks SET after_sequence = ? WHERE id = ?'),
      claim: db.prepare<[string, string, string, string, number], { id: number }>(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?
         WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?)
                      ORDER BY next_attempt_at LIMIT ?)
         RETURNING id`,
      ),
      anyDue: db.prepare<[string, string], { one: number }>(
        "SELECT 1 AS one FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at < ?) LIMIT 1",
      ),
      claimed: db.prepare<[string], ClaimedRow>(
        `SELECT d.id, d.webhook_id, d.event_id, d.payload, d.attempts, w.url, w.secret_ciphertext, w.previous_secret_ciphertext, w.previous_secret_expires_at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.next_attempt_at`,
      ),
      held: db.prepare<[number, string], { one: number }>(
        "SELECT 1 AS one FROM webhook_deliveries WHERE id = ? AND lease_owner = ? AND status = 'pending'",
      ),
      insertAttempt: db.prepare(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, at, status_code, duration_ms, error, response_excerpt)
         VALUES (@deliveryId, @attempt, @at, @statusCode, @durationMs, @error, @responseExcerpt)`,
      ),
      settle: db.prepare(
        `UPDATE webhook_deliveries SET status = @status, attempts = @attempt, next_attempt_at = @nextAttemptAt, lease_owner = NULL, lease_expires_at = NULL
         WHERE id = @deliveryId`,
      ),
      succeeded: db.prepare<[string]>('UPDATE webhooks SET failing_since = NULL WHERE id = ?'),
      failing: db.prepare<[string, string], { environment: string; failing_since: string; disabled_at: string | null }>(
        'UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING environment, failing_since, disabled_at',
      ),
      disable: db.prepare<[string, string]>('UPDATE webhooks SET disabled_at = ? WHERE id = ?'),
      failPending: db.prepare<[string]>(
        "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_owner = NULL, lease_expires_at = NULL WHERE webhook_id = ? AND status = 'pending'",
      ),
      oldestPending: db.prepare<[], { at: string | null }>("SELECT min(created_at) AS at FROM webhook_deliveries WHERE status = 'pending'"),
      anyOld: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM webhook_delivery_attempts WHERE at < ? LIMIT 1'),
      pruneAttempts: db.prepare<[string, number]>(
        'DELETE FROM webhook_delivery_attempts WHERE rowid IN (SELECT rowid FROM webhook_delivery_attempts WHERE at < ? ORDER BY at LIMIT ?)',
      ),
      pruneDeliveries: db.prepare<[string, number]>(
        `DELETE FROM webhook_deliveries WHERE id IN (
           SELECT id FROM webhook_deliveries d WHERE status <> 'pending' AND created_at < ?
             AND NOT EXISTS (SELECT 1 FROM webhook_delivery_attempts a WHERE a.delivery_id = d.id) LIMIT ?)`,
      ),
    };
  }

  async webhooksToDispatch(): Promise<string[]> {
    this.health.assertUsable();
    return this.statements.toDispatch.all().map((row) => row.id);
  }

  async dispatchWebhook(id: string, limit: number, at: string, dueAt: string): Promise<number> {
    return this.groupCommit.run(() => {
      const webhook = this.statements.webhook.get(id);
      if (!webhook) return 0;
      const types = webhook.events === null ? null : new Set(JSON.parse(webhook.events) as EventType[]);
      const events = this.statements.events.all(webhook.environment, webhook.after_sequence, limit).map(toEventRecord);
      for (const event of events) {
        if (types && !types.has(event.type)) continue;
        this.statements.insertDelivery.run(id, event.id, event.type, event.environment, webhookPayload(event), dueAt, at);
      }
      if (events.length > 0) this.statements.advance.run(events.at(-1)!.sequence, id);
      return events.length;
    });
  }

  async claimDeliveries(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
    this.health.assertUsable();
    // An idle poll is one index probe: the write lock (shared with every other process's writes) is taken only when something is due.
    if (!this.statements.anyDue.get(now, now)) return [];
    return this.groupCommit.run(() => {
      const ids = this.statements.claim.all(owner, leaseUntil, now, now, limit).map((row) => row.id);
      if (ids.length === 0) return [];
      return this.statements.claimed.all(JSON.stringify(ids)).map((row) => ({
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
    });
  }

  async recordAttempt(result: AttemptResult): Promise<{ applied: boolean; disabled: boolean }> {
    return this.groupCommit.run(() => {
      // Our lease expired and another worker took the delivery: its outcome, not ours, counts.
      if (!this.statements.held.get(result.deliveryId, result.leaseOwner)) return { applied: false, disabled: false };
      const { attempt } = result;
      this.statements.insertAttempt.run({ deliveryId: result.deliveryId, ...attempt });
      this.statements.settle.run({
        deliveryId: result.deliveryId,
        status: result.outcome === 'retrying' ? 'pending' : result.outcome,
        attempt: attempt.attempt,
        nextAttemptAt: result.nextAttemptAt,
      });
      if (result.outcome === 'succeeded') {
        this.statements.succeeded.run(result.webhookId);
        return { applied: true, disabled: false };
      }
      const webhook = this.statements.failing.get(attempt.at, result.webhookId);
      if (!webhook || webhook.disabled_at !== null || webhook.failing_since > result.disableIfFailingSince)
        return { applied: true, disabled: false };
      this.statements.disable.run(attempt.at, result.webhookId);
      this.statements.failPending.run(result.webhookId);
      this.consequences.persist(webhookDisabled(webhook.environment as Environment, result.webhookId, attempt.at));
      return { applied: true, disabled: true };
    });
  }

  async oldestPendingAt(): Promise<string | null> {
    this.health.assertUsable();
    return this.statements.oldestPending.get()!.at;
  }

  async pruneDeliveries(before: string, limit: number): Promise<number> {
    this.health.assertUsable();
    // Most passes find nothing old: one index probe, no write.
    if (!this.statements.anyOld.get(before)) return 0;
    return this.groupCommit.run(() => {
      const attempts = this.statements.pruneAttempts.run(before, limit).changes;
      this.statements.pruneDeliveries.run(before, limit);
      return attempts;
    });
  }
}
