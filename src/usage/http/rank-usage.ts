import type { UsageService } from '../usage-service.js';
import { USAGE_LIMITS } from '../usage.js';
import { TopUsageQuery, TopUsageResponse } from './usage-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS, LAG } from './usage-docs.js';

/** The environment's groups ranked by usage. */
export function registerRankUsage(app: TypedApp, usage: UsageService): void {
  app.get('/api/usage', {
    schema: {
      summary: "The environment's groups ranked by usage",
      description: `The key environment's groups with the most sessions minted in the range (counted per UTC hour: from is rounded down and to up to the hour), with their sessions, renewals, distinct viewers and latest mint. Defaults: the last ${USAGE_LIMITS.rangeDefaultDays} UTC days, today's included, up to the current hour (the console's Overview and \`ugs usage\` rank over the same days). ${LAG} Read-write and read-only keys.`,
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
