import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { subscribedEvents, webhookJson } from './webhook-view.js';
import { CreateWebhookBody, EXAMPLE_TARGET_URL, WebhookWithSecretResponse } from './webhook-schemas.js';
import { EXAMPLE_SECRET, EXAMPLE_WEBHOOK, WEBHOOK_TAGS } from './webhook-examples.js';

/** Register a webhook. */
export function registerCreateWebhook(app: TypedApp, webhooks: WebhookService): void {
  app.post('/api/webhooks', {
    schema: {
      summary: 'Register a webhook',
      description:
        "Registers an endpoint that receives the key's environment's events from now on, each POSTed and signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature). The answer holds the signing secret, shown this once. https only; loopback, private and every other non-public address, and this host's own, are refused unless the operator allows them (UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS). At most 20 per environment (409 beyond). Read-write keys; audited.",
      tags: WEBHOOK_TAGS,
      body: documented(CreateWebhookBody, {
        examples: {
          all: { summary: 'Every event', value: { url: EXAMPLE_TARGET_URL } },
          some: {
            summary: 'Some events',
            value: {
              url: EXAMPLE_TARGET_URL,
              events: ['user_group.deleted', 'user_group.token_rotated'],
              description: 'Cache invalidation',
            },
          },
        },
      }),
      response: {
        201: documented(WebhookWithSecretResponse, {
          description: 'Registered: keep the secret, it is not shown again.',
          examples: {
            registered: { summary: 'Registered', value: { success: 1, webhook: { ...EXAMPLE_WEBHOOK, secret: EXAMPLE_SECRET } } },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      const { url, events, description } = request.body;
      const created = await webhooks.create(request.principal, { url, events: subscribedEvents(events), description }, request);
      reply.code(201);
      return { success: 1 as const, webhook: { ...webhookJson(created.webhook), secret: created.secret } };
    },
  });
}
