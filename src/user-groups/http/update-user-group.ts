import type { UserGroupService } from '../user-group-service.js';
import {
  ANY_REQUEST_ERRORS,
  API_KEY_ERRORS,
  BODY_ERRORS,
  documented,
  errorAnswers,
  EXAMPLE_TOKEN,
} from '../../platform/http/route-docs.js';
import { UpdateBody, UpdateResponse } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { updateView } from './user-group-view.js';

/** PUT /api/user: replaces the given fields of an existing group. */
export function registerUpdateUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.put('/api/user', {
    schema: {
      summary: 'Update a user group',
      description:
        "Replaces name, mapping and properties where given (properties: null clears them); parent_user_group_id moves the group (null detaches it; 400 for an unknown parent, 409 conflict for a cycle or a chain deeper than 5 levels). The token does not change. 404 when the group does not exist in the key's environment.",
      tags: ['User groups'],
      body: documented(UpdateBody, {
        examples: {
          update: {
            summary: 'Rename and replace the properties',
            value: { user_group_id: 'acme', name: 'Acme Corp.', properties: { region: 'us' } },
          },
          // Not `properties: null` (clears them): @fastify/swagger walks examples as schemas and fails on a null "properties".
          rename: { summary: 'Rename only', value: { user_group_id: 'acme', name: 'Acme Corp.' } },
        },
      }),
      response: {
        200: documented(UpdateResponse, {
          description: 'The group after the update.',
          examples: {
            updated: {
              summary: 'The group after the update; the token is unchanged',
              value: {
                success: 1,
                user_group: {
                  team_id: 1,
                  token: EXAMPLE_TOKEN,
                  name: 'Acme Corp.',
                  provided_id: 'acme',
                  properties: { region: 'us' },
                  api_environment_tag: 'Customer',
                },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => {
      const { user_group_id, name, mapping, properties, parent_user_group_id } = request.body;
      const input = { userGroupId: user_group_id, name, mapping, properties, parentUserGroupId: parent_user_group_id };
      const group = await userGroups.update(request.principal, input, request);
      return { success: 1 as const, user_group: updateView(group) };
    },
  });
}
