import type { ViewerService } from '../viewer-service.js';
import { GroupViewersParams, GroupViewersQuery, GroupViewersResponse } from './viewer-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS } from './viewer-docs.js';

/** List a group's viewers. */
export function registerListGroupViewers(app: TypedApp, viewers: ViewerService): void {
  app.get('/api/user_groups/:user_group_id/viewers', {
    schema: {
      summary: "List a group's viewers",
      description:
        "The viewers named by the group's sessions, most recently seen first. Counted in memory and written every few seconds (UGS_ACTIVITY_FLUSH_MS), so a session shows here within that delay. Follow next_cursor until it is null. Read-write and read-only keys; another environment's group is 404.",
      tags: TAGS,
      params: GroupViewersParams,
      querystring: GroupViewersQuery,
      response: {
        200: documented(GroupViewersResponse, {
          description: 'One page of viewers.',
          examples: {
            page: {
              summary: 'One viewer',
              value: {
                success: 1,
                viewers: [
                  {
                    viewer_id: 'user-42',
                    first_seen_at: '2026-11-20T09:00:00.000Z',
                    last_seen_at: '2026-11-26T11:58:00.000Z',
                    sessions: 17,
                  },
                ],
                next_cursor: null,
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const page = await viewers.list(request.principal, request.params.user_group_id, {
        after: request.query.after,
        limit: request.query.limit,
      });
      return {
        success: 1 as const,
        viewers: page.viewers.map((v) => ({
          viewer_id: v.viewerId,
          first_seen_at: v.firstSeenAt,
          last_seen_at: v.lastSeenAt,
          sessions: v.sessions,
        })),
        next_cursor: page.nextCursor,
      };
    },
  });
}
