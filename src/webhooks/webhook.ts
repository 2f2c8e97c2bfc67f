import { randomBytes } from 'node:crypto';
import type { Environment } from '../kernel/environment.js';
import type { EventRecord, EventType } from '../events/event.js';
import { eventPayload } from '../events/event-payload.js';

/** At most this many webhooks per environment: each one is a dispatch pass and a stream of requests. */
export const MAX_WEBHOOKS_PER_ENVIRONMENT = 20;

/** After a secret rotation the previous secret keeps signing (a second signature) this long, so receivers can switch. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

/** How long a description may be. */
export const DESCRIPTION_MAX_LENGTH = 255;

/** What a delivery is: waiting for an attempt, or done one way or the other. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** A webhook as stored. Its secrets only sealed (`webhookSecretSealContext`), never in plaintext. */
export interface WebhookRecord {
  id: string;
  environment: Environment;
  url: string;
  /** null: every type, including types added later. */
  events: EventType[] | null;
  description: string | null;
  secretCiphertext: Buffer;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  previousSecretCiphertext: Buffer | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  disabledAt: string | null;
  /** When the current run of failed attempts began; null while the last attempt succeeded. */
  failingSince: string | null;
  /** The sequence of the last event the dispatcher has read for it. */
  afterSequence: number;
}

/** One try at sending a delivery, as recorded. */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  /** null on a network error, a timeout or a refused target. */
  statusCode: number | null;
  durationMs: number;
  /** Short: `timeout`, `connection refused`, `HTTP 500`, `redirect not followed`, `target refused: …`; null on success. */
  error: string | null;
  /** At most 1 KiB of the receiver's answer. */
  responseExcerpt: string | null;
}

/** One event to send to one webhook. `payload` is the exact bytes every attempt sends. */
export interface DeliveryRecord {
  id: number;
  webhookId: string;
  eventId: string;
  eventType: EventType;
  environment: Environment;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  attemptLog: DeliveryAttempt[];
}

/** What callers see of a webhook: never a secret. */
export interface WebhookView {
  id: string;
  url: string;
  events: EventType[] | null;
  description: string | null;
  createdAt: string;
  disabledAt: string | null;
  failingSince: string | null;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: EventType;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  attemptLog: DeliveryAttempt[];
}

export function newWebhookId(): string {
  return `wh_${randomBytes(12).toString('hex')}`;
}

/** A signing secret in the Standard Webhooks form: `whsec_` and base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The label a webhook's secrets are sealed under: a ciphertext copied onto another webhook does not open. */
export function webhookSecretSealContext(webhookId: string): string {
  return `webhook-secret:${webhookId}`;
}

export function isWebhookId(value: string): boolean {
  return /^wh_[0-9a-f]{24}$/.test(value);
}

export function toWebhookView(record: WebhookRecord): WebhookView {
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    description: record.description,
    createdAt: record.createdAt,
    disabledAt: record.disabledAt,
    failingSince: record.failingSince,
  };
}

/** `sealedId` is the store's row number sealed (position-seal.ts), shown with a prefix so it is not mistaken for an event id. */
export function toDeliveryView(record: DeliveryRecord, sealedId: string): DeliveryView {
  return {
    id: `whd_${sealedId}`,
    eventId: record.eventId,
    eventType: record.eventType,
    status: record.status,
    attempts: record.attempts,
    nextAttemptAt: record.nextAttemptAt,
    createdAt: record.createdAt,
    attemptLog: record.attemptLog,
  };
}

/** The bytes every attempt of a delivery sends: the event's payload as GET /api/events shows it. */
export function webhookPayload(event: EventRecord): string {
  return JSON.stringify(eventPayload(event));
}
