import type { UsageService } from '../usage-service.js';
import { USAGE_LIMITS } from '../usage.js';
import { GroupUsageParams, GroupUsageQuery, GroupUsageResponse } from './usage-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS, LAG } from './usage-docs.js';

/** A group's usage. */
export function registerGetGroupUsage(app: TypedApp, usage: UsageService): void {
  app.get('/api/user_groups/:user_group_id/usage', {
    schema: {
      summary: "A group's usage",
      description: `Sessions minted, tokens renewed and distinct viewers of the group per UTC hour or day, every bucket of the range present (zeros included). Defaults: the last ${USAGE_LIMITS.rangeDefaultDays} UTC days, today's included (${USAGE_LIMITS.rangeDefaultDays} daily buckets, the same days as the console's charts and \`ugs usage\`), per day. ${LAG} Read-write and read-only keys; another environment's group is 404.`,
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
}
