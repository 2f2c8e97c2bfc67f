import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../kernel/principal.js';
import type { UserGroupService } from '../user-group-service.js';
import { dataSourceUrl } from '../../data-sources/pages/data-source-urls.js';
import { formValuesOf, type FieldErrors, type GroupFormValues } from './group-form.js';
import { groupIdOf, groupRoutes, groupUrl } from './group-urls.js';

const PAGE_SIZE = 25;
/** Children listed on a group's page; more are a search away (groups?parent= is the API's). */
const CHILDREN_SHOWN = 50;
/** A group's tags in its row of the list; the rest are on its page (a group may carry 100). */
const TAGS_SHOWN = 3;

/** What a group's page shows beyond the group itself: the form as typed, its errors, a preview. */
export interface GroupPageExtras {
  values?: GroupFormValues;
  errors?: FieldErrors;
  /** Decoded claims of an embed session just minted. */
  preview?: unknown;
  /** The preview form's viewer fields as typed (embed-sessions/pages/embed-preview-routes.ts, viewers/pages/viewer-form.ts). */
  previewValues?: { viewerId: string; attributes: string };
  notice?: string | null;
  /** The viewers page to show: a next_cursor of the list, or the most recent. */
  viewersAfter?: string;
  /** An "End sessions" confirmation refused: its dialog opens again saying why. */
  endRefused?: { viewerId: string; message: string };
  /** The Customer API fields' form as typed, and why it was refused (customers/pages/customer-action-routes.ts). */
  customerForm?: { values: { emails: string; tags: string[]; demo: boolean; level: string }; error: string };
}

/**
 * A part of a group's page that another concept draws (its viewers, its usage charts): read beside the group, as
 * the same principal, and handed to the page's template (console/views/group.eta includes one template per part).
 * A part that refuses (a group of another environment: not_found) refuses the page, as the group's own reads do.
 */
export type GroupPagePart = (principal: Principal, userGroupId: string, extras: GroupPageExtras) => Promise<Record<string, unknown>>;

/** A group's page, drawn by GET and again by every action done on it: its own forms and other concepts'. */
export interface GroupPage {
  render(request: FastifyRequest, reply: FastifyReply, userGroupId: string, extras?: GroupPageExtras): Promise<FastifyReply>;
}

/** The page of a group with the parts other concepts draw on it, in the order given (the page table, src/app/routes.ts). */
export function groupPage(userGroups: UserGroupService, parts: readonly GroupPagePart[]): GroupPage {
  return { render: (request, reply, userGroupId, extras = {}) => renderGroupPage(userGroups, parts, request, reply, userGroupId, extras) };
}

const NOTICES: Record<string, string> = {
  saved: 'Saved.',
  rotated: 'Token rotated: the old token no longer works.',
  deleted: 'Group deleted.',
};

/** GET /console/groups (search by prefix, a page at a time), a group's page and its token for reveal and copy (group-urls.ts). */
export function registerGroupPages(app: FastifyInstance, userGroups: UserGroupService, page: GroupPage): void {
  app.get<{ Querystring: { prefix?: string; cursor?: string; done?: string } }>(
    '/groups',
    { schema: { hide: true } },
    async (request, reply) => {
      const prefix = request.query.prefix?.trim() || undefined;
      const found = await userGroups.list(request.principal, {
        limit: PAGE_SIZE,
        cursor: request.query.cursor || undefined,
        prefix,
      });
      return reply.view('groups', {
        title: 'Groups',
        session: request.session,
        csrf: reply.generateCsrf(),
        prefix: prefix ?? '',
        groups: found.groups,
        // Level and tags (the Customer API's) only when a group listed has one: a list of /api/user groups stays as it was.
        customerColumns: found.groups.some((g) => g.hierarchyLevel !== undefined || (g.groupTags?.length ?? 0) > 0),
        tagsShown: TAGS_SHOWN,
        nextCursor: found.nextCursor,
        notice: NOTICES[request.query.done ?? ''] ?? null,
        groupUrl,
      });
    },
  );

  for (const url of groupRoutes()) {
    app.get<{ Querystring: { done?: string; viewers_after?: string } }>(url, { schema: { hide: true } }, async (request, reply) =>
      page.render(request, reply, groupIdOf(request), {
        notice: NOTICES[request.query.done ?? ''] ?? null,
        viewersAfter: request.query.viewers_after || undefined,
      }),
    );
  }

  for (const url of groupRoutes('token')) {
    app.get(url, { schema: { hide: true } }, async (request, reply) => {
      const group = await userGroups.getWithToken(request.principal, groupIdOf(request));
      return reply.type('text/plain; charset=utf-8').send(group.token);
    });
  }
}

/** A group's page: the group, its place in the hierarchy, own and effective values, each schema's data source, the token masked,
 * the parts other concepts draw (its usage charts, its viewers), and the forms a read-write session may use. */
async function renderGroupPage(
  userGroups: UserGroupService,
  parts: readonly GroupPagePart[],
  request: FastifyRequest,
  reply: FastifyReply,
  userGroupId: string,
  extras: GroupPageExtras,
): Promise<FastifyReply> {
  const principal = request.principal;
  const [detail, withToken, children, ...drawn] = await Promise.all([
    userGroups.get(principal, userGroupId),
    userGroups.getWithToken(principal, userGroupId),
    userGroups.list(principal, { limit: CHILDREN_SHOWN, parent: userGroupId }),
    ...parts.map((part) => part(principal, userGroupId, extras)),
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
    resolvedMapping: detail.resolvedMapping,
    tokenTail: withToken.token.slice(-4),
    values: extras.values ?? formValuesOf(detail.group),
    errors: extras.errors ?? {},
    preview: extras.preview === undefined ? null : JSON.stringify(extras.preview, null, 2),
    previewValues: extras.previewValues ?? { viewerId: '', attributes: '' },
    ...Object.assign({}, ...drawn),
    endRefused: extras.endRefused ?? null,
    notice: extras.notice ?? null,
    json: (value: unknown) => (value === null || value === undefined ? 'none' : JSON.stringify(value, null, 2)),
    groupUrl,
    dataSourceUrl,
  });
}
