import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EVENT_TYPES } from '../../events/event.js';
import type { WebhookService } from '../webhook-service.js';
import type { WebhookView } from '../webhook.js';
import { EMPTY_WEBHOOK_FORM, webhookState, type WebhookFieldErrors, type WebhookFormValues } from './webhook-form.js';

/** Deliveries on a webhook's page; older ones are GET /api/webhooks/{id}/deliveries' (paged). */
const DELIVERIES_SHOWN = 20;

const NOTICES: Record<string, string> = {
  removed: 'Webhook removed: its pending deliveries will not be sent.',
  enabled: 'Webhook enabled: it gets events from now on.',
  redelivered: 'Redelivery queued: it is sent at once, with the same webhook-id.',
};

/** What the list page shows beyond the webhooks: the Add form as typed and its errors. */
export interface WebhookListExtras {
  values?: WebhookFormValues;
  errors?: WebhookFieldErrors;
  notice?: string | null;
}

/** What a webhook's page shows beyond the webhook: an error beside the remove confirmation. */
export interface WebhookPageExtras {
  errors?: { confirm?: string };
  notice?: string | null;
}

/** GET /console/webhooks (the environment's webhooks and the Add form) and /console/webhooks/:id (one webhook and its latest deliveries).
 * */
export function registerWebhookPages(app: FastifyInstance, webhooks: WebhookService): void {
  app.get<{ Querystring: { done?: string } }>('/webhooks', { schema: { hide: true } }, async (request, reply) =>
    renderWebhookList(webhooks, request, reply, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>('/webhooks/:id', { schema: { hide: true } }, async (request, reply) =>
    renderWebhookPage(webhooks, request, reply, request.params.id, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );
}

export async function renderWebhookList(
  webhooks: WebhookService,
  request: FastifyRequest,
  reply: FastifyReply,
  extras: WebhookListExtras = {},
): Promise<FastifyReply> {
  const list = await webhooks.list(request.principal);
  return reply.view('webhooks', {
    title: 'Webhooks',
    session: request.session,
    csrf: reply.generateCsrf(),
    writable: request.principal.access === 'read-write',
    webhooks: list.map((webhook) => ({ ...webhook, state: webhookState(webhook), eventsText: eventsText(webhook) })),
    eventTypes: EVENT_TYPES,
    values: extras.values ?? EMPTY_WEBHOOK_FORM,
    errors: extras.errors ?? {},
    notice: extras.notice ?? null,
  });
}

export async function renderWebhookPage(
  webhooks: WebhookService,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  extras: WebhookPageExtras = {},
): Promise<FastifyReply> {
  const principal = request.principal;
  const [webhook, deliveries] = await Promise.all([
    webhooks.get(principal, id),
    webhooks.listDeliveries(principal, id, { limit: DELIVERIES_SHOWN }),
  ]);
  return reply.view('webhook', {
    title: `Webhook ${webhook.id}`,
    session: request.session,
    csrf: reply.generateCsrf(),
    writable: principal.access === 'read-write',
    webhook: { ...webhook, state: webhookState(webhook), eventsText: eventsText(webhook) },
    deliveries: deliveries.deliveries,
    moreDeliveries: deliveries.nextCursor !== null,
    errors: extras.errors ?? {},
    notice: extras.notice ?? null,
  });
}

/** The page that shows a signing secret, the once it is ever shown: after Add, and after Rotate secret. */
export function renderSecretPage(
  request: FastifyRequest,
  reply: FastifyReply,
  webhook: WebhookView,
  secret: string,
  rotated: boolean,
): FastifyReply {
  return reply.view('webhook-secret', {
    title: rotated ? 'New signing secret' : 'Webhook added',
    session: request.session,
    csrf: reply.generateCsrf(),
    webhook,
    secret,
    rotated,
  });
}

function eventsText(webhook: WebhookView): string {
  return webhook.events === null ? 'all' : webhook.events.join(', ');
}
