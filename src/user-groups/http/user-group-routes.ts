import rateLimit from '@fastify/rate-limit';
import type { Core } from '../../platform/services.js';
import { authenticate } from '../../api-keys/http/auth.js';
import type { SharedLimits } from '../../api-keys/http/per-key-rate-limit.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { registerDeleteUserGroup } from './delete-user-group.js';
import { registerGetOrCreateUserGroup } from './get-or-create-user-group.js';
import { registerGetUserGroup } from './get-user-group.js';
import { registerHeadUserGroup } from './head-user-group.js';
import { registerListUserGroups } from './list-user-groups.js';
import { registerListDescendants } from './list-descendants.js';
import { registerRotateUserGroupToken } from './rotate-user-group-token.js';
import { registerUpdateUserGroup } from './update-user-group.js';
import { registerEmbedSessionRoutes } from '../../embed-sessions/http/embed-session-routes.js';
import { registerViewerRoutes } from '../../viewers/http/viewer-routes.js';
import { registerUsageRoutes } from '../../usage/http/usage-routes.js';
import { registerListEvents } from '../../events/http/list-events.js';
import { registerWebhookDeliveryRoutes } from '../../webhooks/http/webhook-delivery-routes.js';
import { registerWebhookRoutes } from '../../webhooks/http/webhook-routes.js';

/** The /api routes: every one authenticated, and never cached since they carry tokens. */
export async function userGroupRoutes(app: TypedApp, options: { services: Core; limits: SharedLimits }): Promise<void> {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('cache-control', 'no-store');
    done();
  });
  app.addHook('onRequest', authenticate(options.services.apiKeys, options.limits.throttle));
  if (options.limits.perKeyRateLimit) await app.register(rateLimit, options.limits.perKeyRateLimit);
  registerGetOrCreateUserGroup(app, options.services.userGroups);
  registerHeadUserGroup(app, options.services.userGroups);
  registerUpdateUserGroup(app, options.services.userGroups);
  registerRotateUserGroupToken(app, options.services.userGroups);
  registerDeleteUserGroup(app, options.services.userGroups);
  registerListUserGroups(app, options.services.userGroups);
  registerGetUserGroup(app, options.services.userGroups);
  registerListDescendants(app, options.services.userGroups);
  registerEmbedSessionRoutes(app, options.services.embedSessions);
  registerViewerRoutes(app, options.services.viewers);
  registerUsageRoutes(app, options.services.usage);
  registerListEvents(app, options.services.events);
  registerWebhookRoutes(app, options.services.webhooks);
  registerWebhookDeliveryRoutes(app, options.services.webhooks);
}
