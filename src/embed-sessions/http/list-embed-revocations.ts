import type { EmbedSessionService } from '../embed-session-service.js';
import { RevocationsQuery, RevocationsResponse } from './embed-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS } from './embed-session-docs.js';

/** Revoked embed sessions since a cursor. */
export function registerListEmbedRevocations(app: TypedApp, embedSessions: EmbedSessionService): void {
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
