import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { webhookJson } from './webhook-view.js';
import { WebhookListResponse } from './webhook-schemas.js';
import { EXAMPLE_WEBHOOK, WEBHOOK_TAGS } from './webhook-examples.js';

/** List webhooks. */
export function registerListWebhooks(app: TypedApp, webhooks: WebhookService): void {
  app.get('/api/webhooks', {
    schema: {
      summary: 'List webhooks',
      description: "The webhooks of the key's environment, oldest first, without their secrets. Read-write and read-only keys.",
      tags: WEBHOOK_TAGS,
      response: {
        200: documented(WebhookListResponse, {
          description: 'The webhooks.',
          examples: { one: { summary: 'One webhook', value: { success: 1, webhooks: [EXAMPLE_WEBHOOK] } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden'),
      },
    },
    handler: async (request) => ({ success: 1 as const, webhooks: (await webhooks.list(request.principal)).map(webhookJson) }),
  });
}
