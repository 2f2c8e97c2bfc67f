import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { ServiceError } from '../../kernel/errors.js';
import { formField } from '../../console/pages/form-body-parser.js';
import type { GroupPage } from '../../user-groups/pages/group-page-routes.js';
import { groupIdOf, groupRoutes } from '../../user-groups/pages/group-urls.js';
import { parsePreviewViewer, previewFieldOf } from '../../viewers/pages/viewer-form.js';
import type { EmbedSessionService } from '../embed-session-service.js';

/** Preview sessions are short: long enough to look, short enough not to matter if a screenshot leaks. */
const PREVIEW_SECONDS = 300;

/**
 * "Preview embed" on a group's page (as a viewer too): posted with the session's CSRF token, it mints a short
 * session as the session's key, as POST /api/embed_sessions does, and answers with the group's page showing the
 * session's claims, never its token. A read-only session sees no such form, and the service refuses it anyway.
 */
export function registerEmbedPreview(app: FastifyInstance, embedSessions: EmbedSessionService, page: GroupPage): void {
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  for (const url of groupRoutes('preview')) {
    app.post(url, post, async (request, reply) => {
      const id = groupIdOf(request);
      const previewValues = { viewerId: formField(request.body, 'viewer_id'), attributes: formField(request.body, 'attributes') };
      const parsed = parsePreviewViewer(previewValues);
      if ('errors' in parsed) return page.render(request, reply.code(400), id, { previewValues, errors: parsed.errors });
      let minted;
      try {
        minted = await embedSessions.mint(request.principal, { userGroupId: id, expiresIn: PREVIEW_SECONDS, viewer: parsed.viewer });
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== 'invalid_request') throw error;
        return page.render(request, reply.code(400), id, { previewValues, errors: { [previewFieldOf(error)]: error.message } });
      }
      // The claims, not the token: what the dashboard would be told, without a credential on screen.
      return page.render(request, reply, id, { previewValues, preview: decodeJwt(minted.token) });
    });
  }
}
