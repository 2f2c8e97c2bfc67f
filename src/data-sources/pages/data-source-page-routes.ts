import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { may } from '../../kernel/principal.js';
import type { ConnectionCheckResult } from '../connection-check.js';
import { DATA_SOURCE_KINDS, SSL_MODES } from '../data-source.js';
import type { DataSourceService } from '../data-source-service.js';
import { CHECKS_PER_KEY_PER_MINUTE } from '../http/check-rate-limit.js';
import { checkLines } from './connection-check-view.js';
import { EMPTY_DATA_SOURCE_FORM, formValuesOf, type DataSourceFieldErrors, type DataSourceFormValues } from './data-source-form.js';
import { dataSourceIdOf, dataSourceRoutes, dataSourceUrl } from './data-source-urls.js';

/** Data sources per page of the list; the next page is keyset-paged by id, as GET /api/data_sources is. */
const PAGE_SIZE = 50;

const NOTICES: Record<string, string> = {
  added: 'Data source added.',
  saved: 'Saved.',
  removed: 'Data source removed.',
};

/**
 * What the data source pages need beyond the service: the link to a group's page. Groups are a concept above data
 * sources (eslint.config.js, LAYERS), so the page table (src/app/routes.ts) hands their URL in.
 */
export interface DataSourcePageLinks {
  groupUrl(userGroupId: string): string;
}

/** What the list page shows beyond the data sources: the Add form as typed and its errors. */
export interface DataSourceListExtras {
  values?: DataSourceFormValues;
  errors?: DataSourceFieldErrors;
  notice?: string | null;
}

/** What a data source's page shows beyond it: the Edit form as typed, errors, and a check just run (or why it could not run). */
export interface DataSourcePageExtras {
  values?: DataSourceFormValues;
  errors?: DataSourceFieldErrors;
  check?: ConnectionCheckResult;
  checkError?: string;
  notice?: string | null;
}

/** GET /console/data-sources (a page of the environment's data sources and the Add form) and a data source's page (data-source-urls.ts). */
export function registerDataSourcePages(app: FastifyInstance, dataSources: DataSourceService, links: DataSourcePageLinks): void {
  app.get<{ Querystring: { after?: string; done?: string } }>('/data-sources', { schema: { hide: true } }, async (request, reply) =>
    renderDataSourceList(dataSources, request, reply, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );

  for (const url of dataSourceRoutes()) {
    app.get<{ Querystring: { done?: string } }>(url, { schema: { hide: true } }, async (request, reply) =>
      renderDataSourcePage(dataSources, links, request, reply, dataSourceIdOf(request), {
        notice: NOTICES[request.query.done ?? ''] ?? null,
      }),
    );
  }
}

export async function renderDataSourceList(
  dataSources: DataSourceService,
  request: FastifyRequest,
  reply: FastifyReply,
  extras: DataSourceListExtras = {},
): Promise<FastifyReply> {
  const after = (request.query as { after?: unknown }).after;
  const page = await dataSources.list(request.principal, {
    after: typeof after === 'string' && after !== '' ? after : undefined,
    limit: PAGE_SIZE,
  });
  return reply.view('data-sources', {
    title: 'Data sources',
    session: request.session,
    csrf: reply.generateCsrf(),
    writable: may(request.principal, 'write'),
    dataSources: page.dataSources,
    nextCursor: page.nextCursor,
    paged: typeof after === 'string' && after !== '',
    kinds: DATA_SOURCE_KINDS,
    sslModes: SSL_MODES,
    values: extras.values ?? EMPTY_DATA_SOURCE_FORM,
    errors: extras.errors ?? {},
    notice: extras.notice ?? null,
    dataSourceUrl,
  });
}

export async function renderDataSourcePage(
  dataSources: DataSourceService,
  links: DataSourcePageLinks,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  extras: DataSourcePageExtras = {},
): Promise<FastifyReply> {
  const { dataSource, mappedGroups } = await dataSources.get(request.principal, id);
  return reply.view('data-source', {
    title: `Data source ${dataSource.id}`,
    session: request.session,
    csrf: reply.generateCsrf(),
    writable: may(request.principal, 'write'),
    dataSource,
    mappedGroups: mappedGroups.providedIds.map((groupId) => ({ id: groupId, url: links.groupUrl(groupId) })),
    mappedTotal: mappedGroups.total,
    sslModes: SSL_MODES,
    values: extras.values ?? formValuesOf(dataSource),
    // The Edit form as typed is handed back only when it was refused.
    editRefused: extras.values !== undefined,
    errors: extras.errors ?? {},
    check: extras.check === undefined ? null : checkLines(extras.check),
    checkError: extras.checkError ?? null,
    checksPerMinute: CHECKS_PER_KEY_PER_MINUTE,
    notice: extras.notice ?? null,
    url: (action?: 'edit' | 'check' | 'remove') => dataSourceUrl(dataSource.id, action),
  });
}
