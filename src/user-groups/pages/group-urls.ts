import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '../../kernel/errors.js';
import { CONSOLE_PATH } from '../../console/pages/console-session-hook.js';
import { isDotSegment, pathSegment } from '../../platform/http/path-segment.js';

/** What a group's page does besides showing it: its forms (POST) and the token (GET). */
export type GroupAction = 'edit' | 'rotate' | 'delete' | 'preview' | 'token' | 'end-viewer-sessions' | 'customer';

/**
 * A group's console URL. The id is one percent-encoded path segment (so `/`, `%`, `?` and `#` stay
 * in it), except `.` and `..`: browsers resolve those as dot segments even percent-encoded (WHATWG URL
 * reads `%2E%2E` as `..`), so the link would open the list instead. Those two ride in the query string
 * of /console/group, which serves the same pages.
 */
export function groupUrl(id: string, action?: GroupAction, query: Record<string, string> = {}): string {
  const suffix = action === undefined ? '' : `/${action}`;
  const segment = pathSegment(id);
  if (isDotSegment(segment)) return `${CONSOLE_PATH}/group${suffix}?${new URLSearchParams({ id, ...query }).toString()}`;
  const search = new URLSearchParams(query).toString();
  return `${CONSOLE_PATH}/groups/${segment}${suffix}${search === '' ? '' : `?${search}`}`;
}

/** The routes, under the console's prefix, that serve one page or form of a group: by path segment and by query. */
export function groupRoutes(action?: GroupAction): string[] {
  const suffix = action === undefined ? '' : `/${action}`;
  return [`/groups/:id${suffix}`, `/group${suffix}`];
}

/** The group a request to one of groupRoutes() is about. */
export function groupIdOf(request: FastifyRequest): string {
  const id = (request.params as { id?: string }).id ?? (request.query as { id?: unknown }).id;
  if (typeof id !== 'string' || id === '')
    throw invalidRequest('Name the group: /console/groups/<user_group_id>, or /console/group?id=<user_group_id>.');
  return id;
}
