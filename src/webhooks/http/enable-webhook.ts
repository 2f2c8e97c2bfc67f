import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { webhookJson } from './webhook-view.js';
import { WebhookIdParams, WebhookResponse } from './webhook-schemas.js';
import { EXAMPLE_WEBHOOK, WEBHOOK_TAGS } from './webhook-examples.js';

/** Enable a disabled webhook. */
export function registerEnableWebhook(app: TypedApp, webhooks: WebhookService): void {
  app.post('/api/webhooks/:webhook_id/enable', {
    schema: {
      summary: 'Enable a disabled webhook',
      description:
        'A webhook whose every attempt failed for UGS_WEBHOOK_DISABLE_AFTER_HOURS (5 days by default) was disabled, with a webhook.disabled event. Enabling it delivers the events from now on; those of the disabled time can be redelivered one by one. Enabling an enabled webhook changes nothing. Read-write keys; audited.',
      tags: WEBHOOK_TAGS,
      params: WebhookIdParams,
      response: {
        200: documented(WebhookResponse, {
          description: 'Enabled.',
          examples: { enabled: { summary: 'Enabled', value: { success: 1, webhook: EXAMPLE_WEBHOOK } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => ({
      success: 1 as const,
      webhook: webhookJson(await webhooks.enable(request.principal, request.params.webhook_id, request)),
    }),
  });
}
