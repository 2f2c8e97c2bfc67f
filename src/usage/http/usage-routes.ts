import type { UsageService } from '../usage-service.js';
import { GroupUsageParams, GroupUsageQuery, GroupUsageResponse, TopUsageQuery, TopUsageResponse } from './usage-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';

const TAGS = ['Usage'];
const LAG =
  'Counted in memory by each process and written every few seconds (UGS_ACTIVITY_FLUSH_MS), so a session shows within that delay; a crash loses at most that long of counts.';

/** The authenticated usage routes: a group's buckets, the environment's groups ranked. */
export function registerUsageRoutes(app: TypedApp, usage: UsageService): void {
  app.get('/api/user_groups/:user_group_id/usage', {
    schema: {
      summary: "A group's usage",
      description: `Sessions minted, tokens renewed and distinct viewers of the group per UTC hour or day, every bucket of the range present (zeros included). Defaults: the last 30 days (to = now, from = 30 days before), per day. ${LAG} Read-write and read-only keys; another environment's group is 404.`,
      tags: TAGS,
      params: GroupUsageParams,
      querystring: GroupUsageQuery,
      response: {
        200: documented(GroupUsageResponse, {
          description: 'Every bucket of the range.',
          examples: {
            days: {
              summary: 'Two days',
              value: {
                success: 1,
                usage: [
                  { start: '2026-11-25T00:00:00.000Z', sessions: 42, renewals: 130, viewers: 7 },
                  { start: '2026-11-26T00:00:00.000Z', sessions: 0, renewals: 0, viewers: 0 },
                ],
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { usage: buckets } = await usage.groupUsage(request.principal, request.params.user_group_id, request.query);
      return { success: 1 as const, usage: buckets };
    },
  });

  app.get('/api/usage', {
    schema: {
      summary: "The environment's groups ranked by usage",
      description: `The key environment's groups with the most sessions minted in the range (counted per UTC hour: from is rounded down and to up to the hour), with their sessions, renewals, distinct viewers and latest mint. Defaults: the last 30 days. ${LAG} Read-write and read-only keys.`,
      tags: TAGS,
      querystring: TopUsageQuery,
      response: {
        200: documented(TopUsageResponse, {
          description: 'The top groups.',
          examples: {
            top: {
              summary: 'One group',
              value: {
                success: 1,
                from: '2026-10-27T12:00:00.000Z',
                to: '2026-11-26T12:00:00.000Z',
                groups: [
                  {
                    user_group_id: 'acme',
                    name: 'Acme',
                    sessions: 420,
                    renewals: 1300,
                    viewers: 31,
                    last_session_at: '2026-11-26T11:58:03.120Z',
                  },
                ],
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { range, groups } = await usage.topGroups(request.principal, request.query);
      return {
        success: 1 as const,
        from: range.from,
        to: range.to,
        groups: groups.map((g) => ({
          user_group_id: g.userGroupId,
          name: g.name,
          sessions: g.sessions,
          renewals: g.renewals,
          viewers: g.viewers,
          last_session_at: g.lastSessionAt,
        })),
      };
    },
  });
}
