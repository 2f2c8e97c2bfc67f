import type { WebhookService } from '../webhook-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { DeleteResponse } from '../../user-groups/http/user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { subscribedEvents, webhookJson } from './webhook-view.js';
import {
  CreateWebhookBody,
  EXAMPLE_TARGET_URL,
  WebhookIdParams,
  WebhookListResponse,
  WebhookResponse,
  WebhookWithSecretResponse,
} from './webhook-schemas.js';
import { EXAMPLE_SECRET, EXAMPLE_WEBHOOK, WEBHOOK_TAGS } from './webhook-examples.js';

/** Registering, listing, removing and re-keying webhooks. Deliveries are in webhook-delivery-routes.ts. */
export function registerWebhookRoutes(app: TypedApp, webhooks: WebhookService): void {
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
