import type { EventType } from '../../events/event.js';
import { invalidRequest } from '../../kernel/errors.js';
import type { DeliveryView, WebhookView } from '../webhook.js';
import { ALL_EVENTS, type Delivery, type Webhook } from './webhook-schemas.js';

/**
 * The wire shape of webhooks and deliveries (snake_case; `["*"]` for every
 * event type, where the domain says null), and the way back for `events`.
 */
export function webhookJson(webhook: WebhookView): Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events ?? [ALL_EVENTS],
    description: webhook.description,
    created_at: webhook.createdAt,
    disabled_at: webhook.disabledAt,
    failing_since: webhook.failingSince,
  };
}

export function deliveryJson(delivery: DeliveryView): Delivery {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: delivery.nextAttemptAt,
    created_at: delivery.createdAt,
    attempt_log: delivery.attemptLog.map((a) => ({
      attempt: a.attempt,
      at: a.at,
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
    })),
  };
}

/** `events` as the domain takes it: undefined for all (absent, or `["*"]`). `*` beside named types is ambiguous, so refused. */
export function subscribedEvents(events: readonly string[] | undefined): EventType[] | undefined {
  if (events === undefined) return undefined;
  if (!events.includes(ALL_EVENTS)) return events as EventType[];
  if (events.length > 1) throw invalidRequest('"events" is either ["*"] (every type) or a list of event types, not both.');
  return undefined;
}
