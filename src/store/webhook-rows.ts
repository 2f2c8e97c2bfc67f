import type { Environment } from '../kernel/environment.js';
import type { EventType } from '../events/event.js';
import type { DeliveryAttempt, DeliveryRecord, DeliveryStatus, WebhookRecord } from '../webhooks/webhook.js';

/** Rows as both stores return them (see rows.ts). */
export interface WebhookRow {
  id: string;
  environment: string;
  url: string;
  /** JSON text on SQLite; PostgreSQL's JSONB column arrives parsed. */
  events: string | EventType[] | null;
  description: string | null;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  disabled_at: string | null;
  failing_since: string | null;
  after_sequence: number;
}

export interface DeliveryRow {
  id: number;
  webhook_id: string;
  event_id: string;
  event_type: string;
  environment: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
}

export interface AttemptRow {
  delivery_id: number;
  attempt: number;
  at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export function toWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    environment: row.environment as Environment,
    url: row.url,
    events: typeof row.events === 'string' ? (JSON.parse(row.events) as EventType[]) : row.events,
    description: row.description,
    secretCiphertext: row.secret_ciphertext,
    previousSecretCiphertext: row.previous_secret_ciphertext,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
    failingSince: row.failing_since,
    afterSequence: row.after_sequence,
  };
}

export function toAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    attempt: row.attempt,
    at: row.at,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    responseExcerpt: row.response_excerpt,
  };
}

export function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type as EventType,
    environment: row.environment as Environment,
    payload: row.payload,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    attemptLog: attempts.filter((a) => a.delivery_id === row.id).map(toAttempt),
  };
}
