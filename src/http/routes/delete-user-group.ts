import type { UserGroupService } from '../../domain/user-group-service.js';
import { DeleteBody, DeleteResponse, errorResponses } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';

/** DELETE /api/user: removes a group; its token stops working at once. */
export function registerDeleteUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.delete('/api/user', {
    schema: {
      summary: 'Delete a user group',
      description: 'Deletes the group of the key\'s environment with this user_group_id (404 when absent). Its token stops working at once; a later get-or-create makes a new group with a new team_id and token. Read-only keys get 403. Audited.',
      body: DeleteBody,
      response: { 200: DeleteResponse, ...errorResponses },
    },
    handler: async (request) => {
      await userGroups.delete(request.principal, request.body.user_group_id, request);
      return { success: 1 as const };
    },
  });
}
