import type { UserGroupService } from '../user-group-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { DescendantsQuery, ListResponse, UserGroupIdParams } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { itemView } from './user-group-view.js';

const STORE_EU = {
  team_id: 3,
  provided_id: 'acme-eu',
  name: 'Acme EU',
  properties: { region: 'eu' },
  mapping: { '40': '214' },
  api_environment_tag: 'Customer',
  created_at: '2025-01-31T12:00:00.000Z',
  updated_at: '2025-01-31T12:00:00.000Z',
  parent_user_group_id: 'acme',
};

/** GET /api/user_groups/{user_group_id}/descendants: the group's whole subtree, a page at a time. */
export function registerListDescendants(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user_groups/:user_group_id/descendants', {
    schema: {
      summary: 'List the descendants of a user group',
      description:
        'Every group below this one (children, their children, and so on), newest first, without tokens. Follow next_cursor until it is null. 404 when the group does not exist.',
      tags: ['User groups'],
      params: UserGroupIdParams,
      querystring: DescendantsQuery,
      response: {
        200: documented(ListResponse, {
          description: 'One page of the subtree.',
          examples: { page: { summary: 'The last page', value: { success: 1, user_groups: [STORE_EU], next_cursor: null } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { limit, cursor } = request.query;
      const page = await userGroups.descendants(request.principal, request.params.user_group_id, { limit: limit!, cursor });
      return { success: 1 as const, user_groups: page.groups.map(itemView), next_cursor: page.nextCursor };
    },
  });
}
