import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { webhookJson } from './webhook-view.js';
import { WebhookIdParams, WebhookWithSecretResponse } from './webhook-schemas.js';
import { EXAMPLE_SECRET, EXAMPLE_WEBHOOK, WEBHOOK_TAGS } from './webhook-examples.js';

/** Rotate a webhook's secret. */
export function registerRotateWebhookSecret(app: TypedApp, webhooks: WebhookService): void {
  app.post('/api/webhooks/:webhook_id/rotate_secret', {
    schema: {
      summary: "Rotate a webhook's secret",
      description:
        'A new signing secret, shown this once. For the next 24 hours every delivery carries two signatures (new and previous secret), so the receiver can switch without refusing one. Read-write keys; audited.',
      tags: WEBHOOK_TAGS,
      params: WebhookIdParams,
      response: {
        200: documented(WebhookWithSecretResponse, {
          description: 'Rotated: keep the new secret.',
          examples: { rotated: { summary: 'Rotated', value: { success: 1, webhook: { ...EXAMPLE_WEBHOOK, secret: EXAMPLE_SECRET } } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => {
      const rotated = await webhooks.rotateSecret(request.principal, request.params.webhook_id, request);
      return { success: 1 as const, webhook: { ...webhookJson(rotated.webhook), secret: rotated.secret } };
    },
  });
}
