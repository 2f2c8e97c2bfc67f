import type { EmbedSessionService } from '../embed-session-service.js';
import { SessionIdParams } from './embed-schemas.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { DeleteResponse } from '../../user-groups/http/user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS } from './embed-session-docs.js';

/** End an embed session. */
export function registerRevokeEmbedSession(app: TypedApp, embedSessions: EmbedSessionService): void {
  app.delete('/api/embed_sessions/:session_id', {
    schema: {
      summary: 'End an embed session',
      description:
        "Ends one session at once (introspection answers inactive; the revocation feed lists it). Ending a session that has ended already (ended before, expired, or its group deleted) is not an error and writes nothing; an id the key's environment never minted is 404. Read-write and embed keys. Audited.",
      tags: TAGS,
      params: SessionIdParams,
      response: {
        200: documented(DeleteResponse, { description: 'Ended.', examples: { ended: { summary: 'Ended', value: { success: 1 } } } }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => {
      await embedSessions.revoke(request.principal, request.params.session_id, request);
      return { success: 1 as const };
    },
  });
}
