import type { ViewerService } from '../viewer-service.js';
import { RevokeViewerResponse, ViewerIdParams } from './viewer-schemas.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS } from './viewer-docs.js';

/** End a viewer's sessions. */
export function registerRevokeViewerSessions(app: TypedApp, viewers: ViewerService): void {
  app.delete('/api/viewers/:viewer_id/sessions', {
    schema: {
      summary: "End a viewer's sessions",
      description:
        "Ends at once every live session minted for this viewer in the key's environment, in every group (introspection answers inactive; the revocation feed lists an entry with viewer_id; audited; event viewer.sessions_revoked). 200 also when the viewer has none. Sessions minted after the answer work. Read-write and embed keys.",
      tags: TAGS,
      params: ViewerIdParams,
      response: {
        200: documented(RevokeViewerResponse, {
          description: 'Ended.',
          examples: { ended: { summary: 'Ended', value: { success: 1, viewer_id: 'user-42', revoked_at: '2026-11-26T12:00:00.123Z' } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden'),
      },
    },
    handler: async (request) => {
      const ended = await viewers.revokeSessions(request.principal, request.params.viewer_id, request);
      return { success: 1 as const, viewer_id: ended.viewerId, revoked_at: ended.revokedAt };
    },
  });
}
