import type { Services } from '../../services.js';
import { authenticate } from '../auth.js';
import type { TypedApp } from '../typed-app.js';
import { registerGetOrCreateUserGroup } from './get-or-create-user-group.js';
import { registerRotateUserGroupToken } from './rotate-user-group-token.js';
import { registerUpdateUserGroup } from './update-user-group.js';

/** The /api routes: every one authenticated, and never cached since they carry tokens. */
export async function userGroupRoutes(app: TypedApp, options: { services: Services }): Promise<void> {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  app.addHook('onRequest', authenticate(options.services.apiKeys));
  registerGetOrCreateUserGroup(app, options.services.userGroups);
  registerUpdateUserGroup(app, options.services.userGroups);
  registerRotateUserGroupToken(app, options.services.userGroups);
}
