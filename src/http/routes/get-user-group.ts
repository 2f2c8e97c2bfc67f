import type { UserGroupService } from '../../domain/user-group-service.js';
import { queryValidatorCompiler } from '../query-validator.js';
import { errorResponses, GetResponse, UserGroupIdParams } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';
import { itemView } from '../user-group-view.js';

/** GET /api/user_groups/{user_group_id}: one group without its token; never creates. */
export function registerGetUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user_groups/:user_group_id', {
    schema: {
      summary: 'Read a user group',
      description: 'The group with this user_group_id (URL-encoded) in the key\'s environment, without its token. 404 when absent; never creates.',
      params: UserGroupIdParams,
      response: { 200: GetResponse, ...errorResponses },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => ({ success: 1 as const, user_group: itemView(await userGroups.get(request.principal, request.params.user_group_id)) }),
  });
}
