import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../../platform/services.js';
import { groupUsageCharts } from '../../usage/pages/usage-charts.js';
import type { PreviewViewerValues } from '../../viewers/pages/viewer-form.js';
import { formValuesOf, type FieldErrors, type GroupFormValues } from './group-form.js';
import { groupIdOf, groupRoutes, groupUrl } from './group-urls.js';

const PAGE_SIZE = 25;
/** Children listed on a group's page; more are a search away (groups?parent= is the API's). */
const CHILDREN_SHOWN = 50;
/** Viewers listed on a group's page, most recently seen first; a link pages on. */
const VIEWERS_SHOWN = 50;

/** What a group's page shows beyond the group itself: the form as typed, its errors, a preview. */
export interface GroupPageExtras {
  values?: GroupFormValues;
  errors?: FieldErrors;
  /** Decoded claims of an embed session just minted. */
  preview?: unknown;
  /** The preview form's viewer fields as typed. */
  previewValues?: PreviewViewerValues;
  notice?: string | null;
  /** The viewers page to show: a next_cursor of the list, or the most recent. */
  viewersAfter?: string;
  /** An "End sessions" confirmation refused: its dialog opens again saying why. */
  endRefused?: { viewerId: string; message: string };
}

const NOTICES: Record<string, string> = {
  saved: 'Saved.',
  rotated: 'Token rotated: the old token no longer works.',
  deleted: 'Group deleted.',
};

/** GET /console/groups (search by prefix, a page at a time), a group's page and its token for reveal and copy (group-urls.ts). */
export function registerGroupPages(app: FastifyInstance, services: Core): void {
  app.get<{ Querystring: { prefix?: string; cursor?: string; done?: string } }>(
    '/groups',
    { schema: { hide: true } },
    async (request, reply) => {
      const prefix = request.query.prefix?.trim() || undefined;
      const page = await services.userGroups.list(request.principal, {
        limit: PAGE_SIZE,
        cursor: request.query.cursor || undefined,
        prefix,
      });
      return reply.view('groups', {
        title: 'Groups',
        session: request.session,
        csrf: reply.generateCsrf(),
        prefix: prefix ?? '',
        groups: page.groups,
        nextCursor: page.nextCursor,
        notice: NOTICES[request.query.done ?? ''] ?? null,
        groupUrl,
      });
    },
  );

  for (const url of groupRoutes()) {
    app.get<{ Querystring: { done?: string; viewers_after?: string } }>(url, { schema: { hide: true } }, async (request, reply) =>
      renderGroupPage(services, request, reply, groupIdOf(request), {
        notice: NOTICES[request.query.done ?? ''] ?? null,
        viewersAfter: request.query.viewers_after || undefined,
      }),
    );
  }

  for (const url of groupRoutes('token')) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      const group = await services.userGroups.getWithToken(request.principal, groupIdOf(request));
      return reply.type('text/plain; charset=utf-8').send(group.token);
    });
  }
}

/** A group's page: the group, its place in the hierarchy, own and effective values, the token masked, its usage charts, its viewers,
 * and the forms a read-write session may use. */
export async function renderGroupPage(
  services: Core,
  request: FastifyRequest,
  reply: FastifyReply,
  userGroupId: string,
  extras: GroupPageExtras = {},
): Promise<FastifyReply> {
  const principal = request.principal;
  const [detail, withToken, children, viewers, usage] = await Promise.all([
    services.userGroups.get(principal, userGroupId),
    services.userGroups.getWithToken(principal, userGroupId),
    services.userGroups.list(principal, { limit: CHILDREN_SHOWN, parent: userGroupId }),
    services.viewers.list(principal, userGroupId, { limit: VIEWERS_SHOWN, after: extras.viewersAfter }),
    groupUsageCharts(services.usage, principal, userGroupId),
  ]);
  return reply.view('group', {
    title: detail.group.name,
    session: request.session,
    csrf: reply.generateCsrf(),
    writable: principal.access === 'read-write',
    group: detail.group,
    ancestors: detail.ancestors,
    children: children.groups,
    moreChildren: children.nextCursor !== null,
    effectiveProperties: detail.effectiveProperties,
    effectiveMapping: detail.effectiveMapping,
    tokenTail: withToken.token.slice(-4),
    values: extras.values ?? formValuesOf(detail.group),
    errors: extras.errors ?? {},
    preview: extras.preview === undefined ? null : JSON.stringify(extras.preview, null, 2),
    previewValues: extras.previewValues ?? { viewerId: '', attributes: '' },
    viewers: viewers.viewers,
    viewersNext: viewers.nextCursor,
    viewersPaged: extras.viewersAfter !== undefined,
    usage,
    endRefused: extras.endRefused ?? null,
    notice: extras.notice ?? null,
    json: (value: unknown) => (value === null || value === undefined ? 'none' : JSON.stringify(value, null, 2)),
    groupUrl,
  });
}
