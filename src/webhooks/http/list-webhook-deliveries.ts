import type { WebhookService } from '../webhook-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { deliveryJson } from './webhook-view.js';
import { DeliveriesQuery, DeliveriesResponse, WebhookIdParams } from './webhook-schemas.js';
import { EXAMPLE_DELIVERY, WEBHOOK_TAGS } from './webhook-examples.js';

/** List a webhook's deliveries. */
export function registerListWebhookDeliveries(app: TypedApp, webhooks: WebhookService): void {
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
}
