import type { WebhookService } from '../webhook-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { deliveryJson } from './webhook-view.js';
import { DeliveriesQuery, DeliveriesResponse, DeliveryResponse, RedeliverBody, WebhookIdParams } from './webhook-schemas.js';
import { EXAMPLE_DELIVERY, WEBHOOK_TAGS } from './webhook-examples.js';

/** What a webhook was sent, and sending one event again. */
export function registerWebhookDeliveryRoutes(app: TypedApp, webhooks: WebhookService): void {
  app.get('/api/webhooks/:webhook_id/deliveries', {
    schema: {
      summary: "List a webhook's deliveries",
      description:
        "The webhook's deliveries, newest first, each with every attempt: when, the receiver's status code, how long it took, why it failed and the start of its answer. Pass next_cursor back as `after` for older ones. Read-write and read-only keys.",
      tags: WEBHOOK_TAGS,
      params: WebhookIdParams,
      querystring: DeliveriesQuery,
      response: {
        200: documented(DeliveriesResponse, {
          description: 'One page of deliveries.',
          examples: {
            page: {
              summary: 'One delivery, second attempt succeeded',
              value: { success: 1, deliveries: [EXAMPLE_DELIVERY], next_cursor: null },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { after, limit } = request.query;
      const page = await webhooks.listDeliveries(request.principal, request.params.webhook_id, { after, limit: limit! });
      return { success: 1 as const, deliveries: page.deliveries.map(deliveryJson), next_cursor: page.nextCursor };
    },
  });

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
