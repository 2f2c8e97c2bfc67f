import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '../../kernel/errors.js';
import { CONSOLE_PATH } from '../../console/pages/console-session-hook.js';
import { isDotSegment, pathSegment } from '../../platform/http/path-segment.js';

/** What a data source's page does besides showing it: its forms. */
export type DataSourceAction = 'edit' | 'check' | 'remove';

/** The list of the environment's data sources, and its Add form's target. */
export const DATA_SOURCES_PATH = `${CONSOLE_PATH}/data-sources`;

/**
 * A data source's console URL: its id as one percent-encoded path segment, except `.` and `..`, which browsers
 * resolve away even percent-encoded; those ride in the query string of /console/data-source, which serves the same
 * pages (as a group's URLs do, user-groups/pages/group-urls.ts).
 */
export function dataSourceUrl(id: string, action?: DataSourceAction, query: Record<string, string> = {}): string {
  const suffix = action === undefined ? '' : `/${action}`;
  const segment = pathSegment(id);
  if (isDotSegment(segment)) return `${CONSOLE_PATH}/data-source${suffix}?${new URLSearchParams({ id, ...query }).toString()}`;
  const search = new URLSearchParams(query).toString();
  return `${DATA_SOURCES_PATH}/${segment}${suffix}${search === '' ? '' : `?${search}`}`;
}

/** The routes, under the console's prefix, that serve one page or form of a data source: by path segment and by query. */
export function dataSourceRoutes(action?: DataSourceAction): string[] {
  const suffix = action === undefined ? '' : `/${action}`;
  return [`/data-sources/:id${suffix}`, `/data-source${suffix}`];
}

/** The data source a request to one of dataSourceRoutes() is about. */
export function dataSourceIdOf(request: FastifyRequest): string {
  const id = (request.params as { id?: string }).id ?? (request.query as { id?: unknown }).id;
  if (typeof id !== 'string' || id === '')
    throw invalidRequest('Name the data source: /console/data-sources/<id>, or /console/data-source?id=<id>.');
  return id;
}
