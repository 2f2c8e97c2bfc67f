import type { UserGroupService } from '../../domain/user-group-service.js';
import { queryValidatorCompiler } from '../query-validator.js';
import { errorResponses, ListQuery, ListResponse } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';
import { itemView } from '../user-group-view.js';

/** GET /api/user_groups: the key's environment's groups, newest first, a page at a time. */
export function registerListUserGroups(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user_groups', {
    schema: {
      summary: 'List user groups',
      description: 'The groups of the key\'s environment, newest first, without tokens. Follow next_cursor until it is null; pages stay stable while groups are created. Read-only keys may list.',
      querystring: ListQuery,
      response: { 200: ListResponse, ...errorResponses },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { limit, cursor, q } = request.query;
      const page = await userGroups.list(request.principal, { limit, cursor, prefix: q });
      return { success: 1 as const, user_groups: page.groups.map(itemView), next_cursor: page.nextCursor };
    },
  });
}
