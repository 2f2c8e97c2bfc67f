import type { UserGroupService } from '../../domain/user-group-service.js';
import { errorResponses, RotateBody, RotateResponse } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';
import { rotateView } from '../user-group-view.js';

/** POST /api/user: swaps the group's token for a new one; the old one stops working at once. */
export function registerRotateUserGroupToken(app: TypedApp, userGroups: UserGroupService): void {
  app.post('/api/user', {
    schema: {
      summary: 'Rotate a user group token',
      description: 'Issues a new token for the group holding current_token. The old token stops working immediately; an unknown, malformed or already rotated token is 404.',
      body: RotateBody,
      response: { 200: RotateResponse, ...errorResponses },
    },
    handler: async (request) => {
      const group = await userGroups.rotateToken(request.principal, request.body.current_token, request);
      return { success: 1 as const, user_group: rotateView(group) };
    },
  });
}
