import type { Environment } from '../../domain/environment.js';
import type { EventType } from '../../domain/event.js';
import type { DeliveryAttempt, DeliveryRecord, DeliveryStatus, WebhookRecord } from '../../domain/webhook.js';

export interface WebhookRow {
  id: string;
  environment: string;
  url: string;
  events: EventType[] | null;
  description: string | null;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  disabled_at: Date | null;
  failing_since: Date | null;
  after_sequence: string;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  environment: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  at: Date;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

export function toWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    environment: row.environment as Environment,
    url: row.url,
    events: row.events,
    description: row.description,
    secretCiphertext: row.secret_ciphertext,
    previousSecretCiphertext: row.previous_secret_ciphertext,
    previousSecretExpiresAt: iso(row.previous_secret_expires_at),
    createdAt: row.created_at.toISOString(),
    disabledAt: iso(row.disabled_at),
    failingSince: iso(row.failing_since),
    afterSequence: Number(row.after_sequence),
  };
}

function toAttempt(row: AttemptRow): DeliveryAttempt {
  return {
    attempt: row.attempt,
    at: row.at.toISOString(),
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    responseExcerpt: row.response_excerpt,
  };
}

export function toDelivery(row: DeliveryRow, attempts: AttemptRow[]): DeliveryRecord {
  return {
    id: Number(row.id),
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type as EventType,
    environment: row.environment as Environment,
    payload: row.payload,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    createdAt: row.created_at.toISOString(),
    attemptLog: attempts.filter((a) => a.delivery_id === row.id).map(toAttempt),
  };
}
