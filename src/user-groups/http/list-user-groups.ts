import type { UserGroupService } from '../user-group-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { ListQuery, ListResponse } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { itemView } from './user-group-view.js';

const ACME = {
  team_id: 2,
  provided_id: 'acme',
  name: 'Acme Inc.',
  properties: { region: 'eu' },
  mapping: { '40': '213' },
  api_environment_tag: 'Customer',
  created_at: '2025-01-31T12:00:00.000Z',
  updated_at: '2025-02-01T08:30:00.000Z',
};

/** GET /api/user_groups: the key's environment's groups, newest first, a page at a time. */
export function registerListUserGroups(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user_groups', {
    schema: {
      summary: 'List user groups',
      description:
        "The groups of the key's environment, newest first, without tokens. Follow next_cursor until it is null; pages stay stable while groups are created. parent=<user_group_id> keeps that group's children (404 when it does not exist). Read-only keys may list.",
      tags: ['User groups'],
      querystring: ListQuery,
      response: {
        200: documented(ListResponse, {
          description: 'One page of groups.',
          examples: {
            page: { summary: 'A page with more to follow', value: { success: 1, user_groups: [ACME], next_cursor: 'MQ' } },
            last: { summary: 'The last page', value: { success: 1, user_groups: [], next_cursor: null } },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { limit, cursor, q, parent } = request.query;
      // The validator filled in limit's default when the client left it out.
      const page = await userGroups.list(request.principal, { limit: limit!, cursor, prefix: q, parent });
      return { success: 1 as const, user_groups: page.groups.map(itemView), next_cursor: page.nextCursor };
    },
  });
}
