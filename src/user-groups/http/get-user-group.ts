import type { UserGroupService } from '../user-group-service.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { GetResponse, UserGroupIdParams } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { detailView } from './user-group-view.js';

/** GET /api/user_groups/{user_group_id}: one group without its token; never creates. */
export function registerGetUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user_groups/:user_group_id', {
    schema: {
      summary: 'Read a user group',
      description:
        "The group with this user_group_id (URL-encoded) in the key's environment, without its token, with ancestors (root first) and effective_properties / effective_mapping: the ancestors' values merged root first, the nearer group winning per top-level key, a null value hiding the inherited key. 404 when absent; never creates.",
      tags: ['User groups'],
      params: UserGroupIdParams,
      response: {
        200: documented(GetResponse, {
          description: 'The group, without its token.',
          examples: {
            found: {
              summary: 'The group',
              value: {
                success: 1,
                user_group: {
                  team_id: 1,
                  provided_id: 'acme',
                  name: 'Acme Inc.',
                  properties: { region: 'eu' },
                  mapping: null,
                  api_environment_tag: 'Customer',
                  created_at: '2025-01-31T12:00:00.000Z',
                  updated_at: '2025-01-31T12:00:00.000Z',
                  parent_user_group_id: 'acme-holding',
                  ancestors: ['acme-holding'],
                  effective_properties: { region: 'eu', plan: 'gold' },
                  effective_mapping: { '40': '213' },
                  resolved_mapping: [
                    {
                      schema: '40',
                      value: '213',
                      from_user_group_id: 'acme-holding',
                      inherited: true,
                      data_source: { id: '213', name: 'Acme warehouse', kind: 'postgresql' },
                    },
                  ],
                },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => ({
      success: 1 as const,
      user_group: detailView(await userGroups.get(request.principal, request.params.user_group_id)),
    }),
  });
}
