import type { UserGroupService } from '../user-group-service.js';
import {
  ANY_REQUEST_ERRORS,
  API_KEY_ERRORS,
  BODY_ERRORS,
  documented,
  errorAnswers,
  EXAMPLE_NEW_TOKEN,
  EXAMPLE_TOKEN,
} from '../../platform/http/route-docs.js';
import { RotateBody, RotateResponse } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { rotateView } from './user-group-view.js';

/** POST /api/user: swaps the group's token for a new one; the old one stops working at once. */
export function registerRotateUserGroupToken(app: TypedApp, userGroups: UserGroupService): void {
  app.post('/api/user', {
    schema: {
      summary: 'Rotate a user group token',
      description:
        'Issues a new token for the group holding current_token. The old token stops working immediately; an unknown, malformed or already rotated token is 404.',
      tags: ['User groups'],
      body: documented(RotateBody, { examples: { rotate: { summary: 'Rotate the token', value: { current_token: EXAMPLE_TOKEN } } } }),
      response: {
        200: documented(RotateResponse, {
          description: 'The group with its new token.',
          examples: {
            rotated: {
              summary: 'The group with its new token; the old one no longer works',
              value: {
                success: 1,
                user_group: {
                  team_id: 1,
                  token: EXAMPLE_NEW_TOKEN,
                  name: 'Acme Inc.',
                  provided_id: 'acme',
                  api_environment_tag: 'Customer',
                },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => {
      const group = await userGroups.rotateToken(request.principal, request.body.current_token, request);
      return { success: 1 as const, user_group: rotateView(group) };
    },
  });
}
