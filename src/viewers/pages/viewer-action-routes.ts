import type { FastifyInstance } from 'fastify';
import { formField } from '../../console/pages/form-body-parser.js';
import type { GroupPage } from '../../user-groups/pages/group-page-routes.js';
import { groupIdOf, groupRoutes } from '../../user-groups/pages/group-urls.js';
import type { ViewerService } from '../viewer-service.js';
import { viewerIdRefusal } from './viewer-form.js';

/**
 * "End sessions" on a group's page, one per listed viewer: confirmed by typing
 * the viewer id, posted with the session's CSRF token, and done as the
 * session's key with the request as the change's origin, as
 * DELETE /api/viewers/{viewer_id}/sessions does (audited, an event, a feed
 * entry). A read-only session sees no such control, and the service refuses it
 * anyway. The answer is the group's page saying what ended, not a redirect: a
 * notice naming the viewer in a URL would let any link put words on the page.
 */
export function registerViewerActions(app: FastifyInstance, viewers: ViewerService, page: GroupPage): void {
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  for (const url of groupRoutes('end-viewer-sessions')) {
    app.post(url, post, async (request, reply) => {
      const userGroupId = groupIdOf(request);
      const viewerId = formField(request.body, 'viewer_id');
      const refusal =
        viewerIdRefusal(viewerId) ??
        (formField(request.body, 'confirm') === viewerId
          ? null
          : `Type the viewer id, ${JSON.stringify(viewerId)}, exactly to end its sessions.`);
      if (refusal !== null) return page.render(request, reply.code(400), userGroupId, { endRefused: { viewerId, message: refusal } });
      await viewers.revokeSessions(request.principal, viewerId, request);
      return page.render(request, reply, userGroupId, {
        notice: `The sessions of viewer ${JSON.stringify(viewerId)} ended, in every group of the ${request.principal.environment} environment; sessions minted from now on work.`,
      });
    });
  }
}
