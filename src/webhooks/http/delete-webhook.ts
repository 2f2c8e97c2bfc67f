import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { DeleteResponse } from '../../user-groups/http/user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { WebhookIdParams } from './webhook-schemas.js';
import { WEBHOOK_TAGS } from './webhook-examples.js';

/** Remove a webhook. */
export function registerDeleteWebhook(app: TypedApp, webhooks: WebhookService): void {
  app.delete('/api/webhooks/:webhook_id', {
    schema: {
      summary: 'Remove a webhook',
      description: 'Removes the webhook at once: its pending deliveries are not sent. Read-write keys; audited.',
      tags: WEBHOOK_TAGS,
      params: WebhookIdParams,
      response: {
        200: documented(DeleteResponse, { description: 'Removed.', examples: { removed: { summary: 'Removed', value: { success: 1 } } } }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => {
      await webhooks.remove(request.principal, request.params.webhook_id, request);
      return { success: 1 as const };
    },
  });
}
