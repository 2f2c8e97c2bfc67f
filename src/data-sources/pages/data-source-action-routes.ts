import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';
import { formField } from '../../console/pages/form-body-parser.js';
import type { DataSourceService } from '../data-source-service.js';
import { CHECK_RATE_LIMIT, CHECK_RATE_LIMIT_PLUGIN } from '../http/check-rate-limit.js';
import { dataSourceFieldOf, dataSourceFormValues, parseAddForm, parseEditForm } from './data-source-form.js';
import {
  renderDataSourceList,
  renderDataSourcePage,
  type DataSourcePageExtras,
  type DataSourcePageLinks,
} from './data-source-page-routes.js';
import { DATA_SOURCES_PATH, dataSourceIdOf, dataSourceRoutes, dataSourceUrl, type DataSourceAction } from './data-source-urls.js';

/** Refusals of the Add and Edit forms shown beside their fields rather than as a page of their own. */
const FORM_ERRORS = new Set(['invalid_request', 'conflict']);

/**
 * The data source forms: add, edit, check, remove. Each posts with the session's CSRF token and calls
 * DataSourceService as the session's key with the request as the change's origin, as the API's routes do. A
 * read-only session sees none of these forms; the service refuses it anyway. A password typed into a form is never
 * drawn back into the page that answers it, refused or not.
 */
export function registerDataSourceActions(app: FastifyInstance, dataSources: DataSourceService, links: DataSourcePageLinks): void {
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  const page = (request: FastifyRequest, reply: FastifyReply, id: string, extras: DataSourcePageExtras) =>
    renderDataSourcePage(dataSources, links, request, reply, id, extras);
  const onPost = (
    scope: FastifyInstance,
    action: DataSourceAction,
    handler: (request: FastifyRequest, reply: FastifyReply, id: string) => Promise<FastifyReply>,
    config: Record<string, unknown> = {},
  ) => {
    for (const url of dataSourceRoutes(action))
      scope.post(url, { ...post, config }, async (request, reply) => handler(request, reply, dataSourceIdOf(request)));
  };

  app.post('/data-sources', post, async (request, reply) => {
    const values = dataSourceFormValues(request.body);
    const parsed = parseAddForm(values, formField(request.body, 'password'));
    if ('errors' in parsed) return renderDataSourceList(dataSources, request, reply.code(400), { values, errors: parsed.errors });
    try {
      const created = await dataSources.create(request.principal, parsed.input, request);
      return reply.redirect(dataSourceUrl(created.id, undefined, { done: 'added' }), 303);
    } catch (error) {
      if (!(error instanceof ServiceError) || !FORM_ERRORS.has(error.code)) throw error;
      const status = error.code === 'conflict' ? 409 : 400;
      return renderDataSourceList(dataSources, request, reply.code(status), {
        values,
        errors: { [dataSourceFieldOf(error)]: error.message },
      });
    }
  });

  onPost(app, 'edit', async (request, reply, id) => {
    const values = { ...dataSourceFormValues(request.body), id };
    const parsed = parseEditForm(values, formField(request.body, 'password'));
    if ('errors' in parsed) return page(request, reply.code(400), id, { values, errors: parsed.errors });
    try {
      await dataSources.update(request.principal, id, parsed.update, request);
    } catch (error) {
      if (!(error instanceof ServiceError) || !FORM_ERRORS.has(error.code)) throw error;
      const status = error.code === 'conflict' ? 409 : 400;
      return page(request, reply.code(status), id, { values, errors: { [dataSourceFieldOf(error)]: error.message } });
    }
    return reply.redirect(dataSourceUrl(id, undefined, { done: 'saved' }), 303);
  });

  // In a scope of its own with the check's budget per key, as the API's check route has (http/check-rate-limit.ts).
  void app.register(async (scope) => {
    await scope.register(rateLimit, CHECK_RATE_LIMIT_PLUGIN);
    onPost(
      scope,
      'check',
      async (request, reply, id) => {
        try {
          const check = await dataSources.check(request.principal, id, request);
          return page(request, reply, id, { check });
        } catch (error) {
          // No checker in this process (or it is down): said on the page, where the result would be, with the API's status.
          if (!(error instanceof ServiceError) || error.code !== 'unavailable') throw error;
          return page(request, reply.code(503), id, { checkError: error.message });
        }
      },
      { rateLimit: CHECK_RATE_LIMIT },
    );
  });

  onPost(app, 'remove', async (request, reply, id) => {
    if (formField(request.body, 'confirm') !== id)
      return page(request, reply.code(400), id, {
        errors: { confirm: `Type the data source id, ${JSON.stringify(id)}, exactly to remove it.` },
      });
    try {
      await dataSources.remove(request.principal, id, { force: formField(request.body, 'force') === '1' }, request);
    } catch (error) {
      // Groups map to it (perhaps since the page was drawn): the dialog again, open, with the box that forces it.
      if (!(error instanceof ServiceError) || error.code !== 'conflict') throw error;
      const { total } = (await dataSources.get(request.principal, id)).mappedGroups;
      return page(request, reply.code(409), id, { errors: { force: mappedRefusal(id, total) } });
    }
    return reply.redirect(`${DATA_SOURCES_PATH}?done=removed`, 303);
  });
}

/** The service's refusal in the console's words: the box to tick rather than the API's force=true. */
function mappedRefusal(id: string, total: number): string {
  const groups = total === 1 ? '1 group maps' : `${total} groups map`;
  return `${groups} a schema to data source ${JSON.stringify(id)}: tick "Remove it although groups map to it" to remove it anyway (those values then resolve to no data source), or change their mappings first.`;
}
