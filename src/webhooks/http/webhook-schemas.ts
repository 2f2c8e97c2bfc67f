import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/event.js';
import { sealedCursor } from '../../platform/http/schemas.js';

/** The webhook part of the wire (/api/webhooks and its siblings). */

/**
 * The URL the OpenAPI examples register. Not a documentation address (203.0.113.0/24 …): the target
 * guard refuses those, and every request example must pass the server's own validation. A literal
 * public address (example.com's in 2024), so the example needs no DNS either.
 */
export const EXAMPLE_TARGET_URL = 'https://93.184.215.14/hooks/user-groups';

/** Every event type, and `*` for all of them (including types added later). */
export const ALL_EVENTS = '*';
const EventTypeOrAll = Type.Union([...EVENT_TYPES.map((type) => Type.Literal(type)), Type.Literal(ALL_EVENTS)], {
  description: 'An event type, or `*` for every type (including types added later).',
});

export const WebhookIdParams = Type.Object({
  webhook_id: Type.String({ minLength: 1, maxLength: 100, description: 'The webhook id (wh_…).' }),
});
export type WebhookIdParams = Static<typeof WebhookIdParams>;

export const CreateWebhookBody = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      "Where deliveries are POSTed. https only, to a public address; a loopback, private or other non-public address, or one of this host's own (http or https), only when the operator sets UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true. No credentials in the URL.",
    examples: [EXAMPLE_TARGET_URL],
  }),
  events: Type.Optional(
    Type.Array(EventTypeOrAll, {
      minItems: 1,
      maxItems: EVENT_TYPES.length + 1,
      uniqueItems: true,
      description: 'The event types to deliver; default `["*"]` (all).',
    }),
  ),
  description: Type.Optional(Type.String({ maxLength: 255, description: 'A note for operators.' })),
});
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

const WebhookFields = {
  id: Type.String({ description: 'The webhook id (wh_…).' }),
  url: Type.String(),
  events: Type.Array(EventTypeOrAll, { description: 'The event types delivered; `["*"]` is all.' }),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'Set when every attempt failed for UGS_WEBHOOK_DISABLE_AFTER_HOURS (5 days by default): nothing is delivered until it is enabled again.',
  }),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The first failed attempt since the last success; null while deliveries succeed.',
  }),
};

export const Webhook = Type.Object(WebhookFields);
export type Webhook = Static<typeof Webhook>;

export const WebhookResponse = Type.Object({ success: Type.Literal(1), webhook: Webhook });
export type WebhookResponse = Static<typeof WebhookResponse>;

export const WebhookWithSecretResponse = Type.Object({
  success: Type.Literal(1),
  webhook: Type.Object({
    ...WebhookFields,
    secret: Type.String({
      description:
        'The signing secret (whsec_ + base64), shown this once: stored encrypted, never shown again. Verify each delivery with it (Standard Webhooks).',
    }),
  }),
});
export type WebhookWithSecretResponse = Static<typeof WebhookWithSecretResponse>;

export const WebhookListResponse = Type.Object({ success: Type.Literal(1), webhooks: Type.Array(Webhook) });
export type WebhookListResponse = Static<typeof WebhookListResponse>;

export const DeliveriesQuery = Type.Object({
  after: Type.Optional(sealedCursor('next_cursor of the previous page, unchanged; leave it out for the newest.')),
  // Optional for the client: the validator fills in the default.
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Deliveries per page, 1 to 100.' })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  at: Type.String({ format: 'date-time' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's HTTP status; null when none came (timeout, refused, network error).",
  }),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the attempt failed (`timeout`, `HTTP 500`, `redirect not followed`, `target refused: …`); null on success.',
  }),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: "The start of the receiver's answer (at most 1 KiB)." }),
});

export const Delivery = Type.Object({
  id: Type.String(),
  event_id: Type.String({ description: 'The event delivered: the webhook-id header of every attempt.' }),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Integer({ minimum: 0 }),
  next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the next attempt is due; null once succeeded or failed.',
  }),
  created_at: Type.String({ format: 'date-time' }),
  attempt_log: Type.Array(Attempt, { description: 'Every attempt, first first.' }),
});
export type Delivery = Static<typeof Delivery>;

export const DeliveriesResponse = Type.Object({
  success: Type.Literal(1),
  deliveries: Type.Array(Delivery, { description: 'Newest first.' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for older deliveries; null on the last page.' }),
});
export type DeliveriesResponse = Static<typeof DeliveriesResponse>;

export const RedeliverBody = Type.Object({
  event_id: Type.String({ minLength: 1, maxLength: 100, description: 'The event to send again (evt_…).' }),
});
export type RedeliverBody = Static<typeof RedeliverBody>;

export const DeliveryResponse = Type.Object({ success: Type.Literal(1), delivery: Delivery });
export type DeliveryResponse = Static<typeof DeliveryResponse>;
