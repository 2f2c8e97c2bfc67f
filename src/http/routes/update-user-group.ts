import type { UserGroupService } from '../../domain/user-group-service.js';
import { errorResponses, UpdateBody, UpdateResponse } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';
import { updateView } from '../user-group-view.js';

/** PUT /api/user: replaces the given fields of an existing group. */
export function registerUpdateUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.put('/api/user', {
    schema: {
      summary: 'Update a user group',
      description: 'Replaces name, mapping and properties where given (properties: null clears them). The token does not change. 404 when the group does not exist in the key\'s environment.',
      body: UpdateBody,
      response: { 200: UpdateResponse, ...errorResponses },
    },
    handler: async (request) => {
      const { user_group_id, name, mapping, properties } = request.body;
      const group = await userGroups.update(request.principal, { userGroupId: user_group_id, name, mapping, properties }, request);
      return { success: 1 as const, user_group: updateView(group) };
    },
  });
}
