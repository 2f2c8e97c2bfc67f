import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';
import type { WebhookService } from '../webhook-service.js';
import { CONSOLE_PATH } from '../../console/pages/console-session-hook.js';
import { formField } from '../../console/pages/form-body-parser.js';
import { webhookFieldOf, webhookFormValues, webhookInputOf } from './webhook-form.js';
import { renderSecretPage, renderWebhookList, renderWebhookPage } from './webhook-page-routes.js';

type WebhookPost = { Params: { id: string } };

/** Refusals of the Add form shown beside its fields rather than as a page of their own. */
const FORM_ERRORS = new Set(['invalid_request', 'conflict']);

/**
 * The Webhooks forms: add, rotate the secret, enable, remove, redeliver. Each
 * posts with the session's CSRF token and calls WebhookService as the
 * session's key with the request as the change's origin, as the API's routes
 * do. A read-only session sees none of these forms; the service refuses it anyway.
 */
export function registerWebhookActions(app: FastifyInstance, webhooks: WebhookService): void {
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  const webhookPath = (id: string) => `${CONSOLE_PATH}/webhooks/${encodeURIComponent(id)}`;

  app.post('/webhooks', post, async (request, reply) => {
    const values = webhookFormValues(request.body);
    const parsed = webhookInputOf(values);
    if ('errors' in parsed) return renderWebhookList(webhooks, request, reply.code(400), { values, errors: parsed.errors });
    try {
      const { webhook, secret } = await webhooks.create(request.principal, parsed.input, request);
      // Rendered, not redirected: the secret exists in this answer only, never in a URL or a later page.
      return renderSecretPage(request, reply.code(201), webhook, secret, false);
    } catch (error) {
      if (!(error instanceof ServiceError) || !FORM_ERRORS.has(error.code)) throw error;
      const status = error.code === 'conflict' ? 409 : 400;
      return renderWebhookList(webhooks, request, reply.code(status), { values, errors: { [webhookFieldOf(error)]: error.message } });
    }
  });

  app.post<WebhookPost>('/webhooks/:id/rotate', post, async (request, reply) => {
    const { webhook, secret } = await webhooks.rotateSecret(request.principal, request.params.id, request);
    return renderSecretPage(request, reply, webhook, secret, true);
  });

  app.post<WebhookPost>('/webhooks/:id/enable', post, async (request, reply) => {
    await webhooks.enable(request.principal, request.params.id, request);
    return reply.redirect(`${webhookPath(request.params.id)}?done=enabled`, 303);
  });

  app.post<WebhookPost>('/webhooks/:id/remove', post, async (request, reply) => {
    const id = request.params.id;
    if (formField(request.body, 'confirm') !== id) {
      return renderWebhookPage(webhooks, request, reply.code(400), id, {
        errors: { confirm: `Type the webhook id, ${id}, exactly to remove it.` },
      });
    }
    await webhooks.remove(request.principal, id, request);
    return reply.redirect(`${CONSOLE_PATH}/webhooks?done=removed`, 303);
  });

  app.post<WebhookPost>('/webhooks/:id/redeliver', post, async (request, reply) => {
    await webhooks.redeliver(request.principal, request.params.id, formField(request.body, 'event_id'), request);
    return reply.redirect(`${webhookPath(request.params.id)}?done=redelivered`, 303);
  });
}
