import type { UserGroupService } from '../user-group-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import { DeleteBody, DeleteResponse } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';

/** DELETE /api/user: removes a group; its token stops working at once. */
export function registerDeleteUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.delete('/api/user', {
    schema: {
      summary: 'Delete a user group',
      description:
        "Deletes the group of the key's environment with this user_group_id (404 when absent). Its token stops working at once; a later get-or-create makes a new group with a new team_id and token. A group that has children is refused with 409 conflict unless cascade is true: then its whole subtree goes in one transaction, every token in it stops working and every embed session of it ends. Read-only keys get 403. Each deleted group is audited.",
      tags: ['User groups'],
      body: documented(DeleteBody, { examples: { delete: { summary: 'Delete a group', value: { user_group_id: 'acme' } } } }),
      response: {
        200: documented(DeleteResponse, { description: 'Deleted.', examples: { deleted: { summary: 'Deleted', value: { success: 1 } } } }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => {
      await userGroups.delete(request.principal, request.body.user_group_id, request, { cascade: request.body.cascade });
      return { success: 1 as const };
    },
  });
}
