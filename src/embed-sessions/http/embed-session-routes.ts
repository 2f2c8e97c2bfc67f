import type { EmbedSessionService } from '../embed-session-service.js';
import {
  IntrospectBody,
  IntrospectResponse,
  MintBody,
  MintResponse,
  RenewBody,
  RevocationsQuery,
  RevocationsResponse,
  SessionIdParams,
} from './embed-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { DeleteResponse } from '../../user-groups/http/user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';

const TAGS = ['Embed sessions'];
const EXAMPLE_JWT = 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiIsInR5cCI6ImVtYmVkK2p3dCJ9.eyJzdWIiOiJhY21lIn0.EXAMPLE0not0a0real0signature';
const EXAMPLE_SESSION_ID = 'es_EXAMPLE0not0a0real0id';

/** The authenticated embed session routes: mint, end, introspect, and the revocation feed. */
export function registerEmbedSessionRoutes(app: TypedApp, embedSessions: EmbedSessionService): void {
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

  app.post('/api/embed_sessions/introspect', {
    schema: {
      summary: 'Introspect an embed token',
      description:
        'RFC 7662: {"active":true, ...claims} when the token is signed by this service, unexpired, of the key\'s environment, not ended and its group still holds the token it was minted under; {"active":false} for anything else. Any key of the environment.',
      tags: TAGS,
      body: documented(IntrospectBody, { examples: { token: { summary: 'A token', value: { token: EXAMPLE_JWT } } } }),
      response: {
        200: documented(IntrospectResponse, {
          description: 'Whether the token is live, and its claims when it is.',
          examples: { inactive: { summary: 'Not live', value: { active: false } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS),
      },
    },
    handler: async (request) => embedSessions.introspect(request.principal, request.body.token),
  });

  app.get('/api/embed_sessions/revocations', {
    schema: {
      summary: 'Revoked embed sessions since a cursor',
      description:
        "The environment's revocations, oldest first: sessions ended, groups whose token was rotated or that were deleted. A verifier that checks signatures offline polls this. Entries are kept until no token they cover can be live. Any key of the environment.",
      tags: TAGS,
      querystring: RevocationsQuery,
      response: {
        200: documented(RevocationsResponse, {
          description: 'One page of revocations.',
          examples: {
            page: {
              summary: 'A rotation',
              value: {
                success: 1,
                environment: 'Customer',
                revocations: [
                  {
                    session_id: null,
                    user_group_id: 'acme',
                    token_version: 'AbCdEfGhIjKlMnOp',
                    viewer_id: null,
                    reason: 'token_rotated',
                    revoked_at: '2026-11-23T12:00:00.000Z',
                    expires_at: '2026-11-24T12:01:00.000Z',
                  },
                ],
                next_cursor: 'Zk3qD5Yh0nW2cTQx8aPjLg',
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS),
      },
    },
    // A query-only route: its query string is coerced as GET /api/user_groups' is ("100" is a limit).
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const page = await embedSessions.revocations(request.principal, { after: request.query.after, limit: request.query.limit });
      return {
        success: 1 as const,
        environment: request.principal.environment,
        revocations: page.revocations.map((r) => ({
          session_id: r.sessionId,
          user_group_id: r.providedId,
          token_version: r.tokenVersion,
          viewer_id: r.viewerId,
          reason: r.reason,
          revoked_at: r.revokedAt,
          expires_at: r.expiresAt,
        })),
        next_cursor: page.nextCursor,
      };
    },
  });
}
