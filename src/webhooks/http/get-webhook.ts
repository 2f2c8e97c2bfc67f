import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { webhookJson } from './webhook-view.js';
import { WebhookIdParams, WebhookResponse } from './webhook-schemas.js';
import { EXAMPLE_WEBHOOK, WEBHOOK_TAGS } from './webhook-examples.js';

/** Read a webhook. */
export function registerGetWebhook(app: TypedApp, webhooks: WebhookService): void {
  app.get('/api/webhooks/:webhook_id', {
    schema: {
      summary: 'Read a webhook',
      description: "One webhook of the key's environment, without its secret; 404 when it is not one. Read-write and read-only keys.",
      tags: WEBHOOK_TAGS,
      params: WebhookIdParams,
      response: {
        200: documented(WebhookResponse, {
          description: 'The webhook.',
          examples: { one: { summary: 'A webhook', value: { success: 1, webhook: EXAMPLE_WEBHOOK } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => ({
      success: 1 as const,
      webhook: webhookJson(await webhooks.get(request.principal, request.params.webhook_id)),
    }),
  });
}
