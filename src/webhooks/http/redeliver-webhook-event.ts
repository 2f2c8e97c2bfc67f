import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { deliveryJson } from './webhook-view.js';
import { DeliveryResponse, RedeliverBody, WebhookIdParams } from './webhook-schemas.js';
import { EXAMPLE_DELIVERY, WEBHOOK_TAGS } from './webhook-examples.js';

/** Redeliver an event. */
export function registerRedeliverWebhookEvent(app: TypedApp, webhooks: WebhookService): void {
  app.post('/api/webhooks/:webhook_id/redeliver', {
    schema: {
      summary: 'Redeliver an event',
      description:
        'Sends one event to the webhook again, as a new delivery due now with its own retries: the same body and the same webhook-id as the first time, so a receiver that deduplicates sees it once. The event must still be kept (UGS_EVENT_RETENTION_DAYS) or have been delivered to this webhook before; a disabled webhook must be enabled first (409). Read-write keys.',
      tags: WEBHOOK_TAGS,
      params: WebhookIdParams,
      body: documented(RedeliverBody, { examples: { one: { summary: 'One event', value: { event_id: EXAMPLE_DELIVERY.event_id } } } }),
      response: {
        202: documented(DeliveryResponse, {
          description: 'Scheduled: a worker sends it within a poll interval.',
          examples: {
            scheduled: {
              summary: 'Scheduled',
              value: {
                success: 1,
                delivery: {
                  ...EXAMPLE_DELIVERY,
                  status: 'pending',
                  attempts: 0,
                  next_attempt_at: '2026-11-23T12:30:00.000Z',
                  attempt_log: [],
                },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      const delivery = await webhooks.redeliver(request.principal, request.params.webhook_id, request.body.event_id, request);
      reply.code(202);
      return { success: 1 as const, delivery: deliveryJson(delivery) };
    },
  });
}
