import type { EmbedSessionService } from '../embed-session-service.js';
import { MintBody, MintResponse } from './embed-schemas.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS, EXAMPLE_JWT, EXAMPLE_SESSION_ID } from './embed-session-docs.js';

/** Mint an embed session. */
export function registerMintEmbedSession(app: TypedApp, embedSessions: EmbedSessionService): void {
  app.post('/api/embed_sessions', {
    schema: {
      summary: 'Mint an embed session',
      description:
        "Mints a short-lived signed embed token for a group of the key's environment (by user_group_id or its current user_group_token), for the customer's page to hand to an embedded dashboard. Read-write and embed keys; read-only keys get 403; an unknown group is 404.",
      tags: TAGS,
      body: documented(MintBody, {
        examples: {
          byId: {
            summary: 'By user_group_id',
            value: { user_group_id: 'acme', expires_in: 600, dashboard: 'sales', origins: ['https://app.example.com'] },
          },
        },
      }),
      response: {
        201: documented(MintResponse, {
          description: 'Minted: hand the token to the browser.',
          examples: {
            minted: {
              summary: 'Minted',
              value: {
                success: 1,
                embed_session: {
                  token: EXAMPLE_JWT,
                  session_id: EXAMPLE_SESSION_ID,
                  expires_at: '2026-11-23T12:10:00.000Z',
                  user_group_id: 'acme',
                  team_id: 1,
                },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const minted = await embedSessions.mint(request.principal, {
        userGroupId: body.user_group_id,
        userGroupToken: body.user_group_token,
        expiresIn: body.expires_in,
        dashboard: body.dashboard,
        origins: body.origins,
        includeDescendants: body.include_descendants,
        viewer: body.viewer,
        maxLifetime: body.max_lifetime,
      });
      reply.code(201);
      return {
        success: 1 as const,
        embed_session: {
          token: minted.token,
          session_id: minted.sessionId,
          expires_at: minted.expiresAt,
          user_group_id: minted.userGroupId,
          team_id: minted.teamId,
        },
      };
    },
  });
}
