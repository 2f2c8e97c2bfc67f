import type { EmbedSessionService } from '../embed-session-service.js';
import { MintResponse, RenewBody } from './embed-schemas.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS, EXAMPLE_JWT } from './embed-session-docs.js';

/** Renew an embed session. */
export function registerRenewEmbedSession(app: TypedApp, embedSessions: EmbedSessionService): void {
  app.post('/api/embed_sessions/renew', {
    schema: {
      summary: 'Renew an embed session',
      description:
        "A new token for a live session, with the same session_id, a new exp (capped by the session's max_lifetime) and the group's claims as they are now (name, mapping, properties, hierarchy; the viewer, dashboard and origins carried over). A session that has ended (revoked by id, by viewer, by token rotation or deletion, past its max_lifetime, or a token expired more than 60 s ago) is 409 conflict, saying why; a token that is not one of this environment's is 400. Read-write and embed keys; read-only keys get 403.",
      tags: TAGS,
      body: documented(RenewBody, {
        examples: { renew: { summary: 'The current token (one this service signed)', value: { token: EXAMPLE_JWT, expires_in: 600 } } },
      }),
      response: {
        201: documented(MintResponse, { description: 'Renewed: hand the new token to the dashboard frame.' }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      const renewed = await embedSessions.renew(request.principal, request.body.token, request.body.expires_in);
      reply.code(201);
      return {
        success: 1 as const,
        embed_session: {
          token: renewed.token,
          session_id: renewed.sessionId,
          expires_at: renewed.expiresAt,
          user_group_id: renewed.userGroupId,
          team_id: renewed.teamId,
        },
      };
    },
  });
}
