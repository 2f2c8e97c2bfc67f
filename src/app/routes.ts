import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Core } from './core.js';
import { authenticate } from '../api-keys/http/auth.js';
import type { SharedLimits } from '../api-keys/http/per-key-rate-limit.js';
import type { TypedApp } from '../platform/http/typed-app.js';
import { registerDeleteUserGroup } from '../user-groups/http/delete-user-group.js';
import { registerGetOrCreateUserGroup } from '../user-groups/http/get-or-create-user-group.js';
import { registerCreateCustomer } from '../customers/http/create-customer.js';
import { registerGetCustomer } from '../customers/http/get-customer.js';
import { registerUpdateCustomer } from '../customers/http/update-customer.js';
import { registerDeleteCustomer } from '../customers/http/delete-customer.js';
import { registerRefreshCustomerToken } from '../customers/http/refresh-customer-token.js';
import { registerListCustomers } from '../customers/http/list-customers.js';
import { registerListCustomersV2 } from '../customers/http/list-customers-v2.js';
import { registerConfigureCustomerPortal } from '../customers/http/configure-customer-portal.js';
import { registerGenerateJwt } from '../customers/http/generate-jwt.js';
import { registerListGroupTags } from '../group-tags/http/list-group-tags.js';
import { groupCustomer } from '../customers/pages/customer-part.js';
import { registerCustomerActions } from '../customers/pages/customer-action-routes.js';
import { registerGroupTagPages } from '../group-tags/pages/group-tag-pages.js';
import { registerCreateGroupTag } from '../group-tags/http/create-group-tag.js';
import { registerRenameGroupTag } from '../group-tags/http/rename-group-tag.js';
import { registerDeleteGroupTag } from '../group-tags/http/delete-group-tag.js';
import { registerGetUserGroup } from '../user-groups/http/get-user-group.js';
import { registerHeadUserGroup } from '../user-groups/http/head-user-group.js';
import { registerListUserGroups } from '../user-groups/http/list-user-groups.js';
import { registerListDescendants } from '../user-groups/http/list-descendants.js';
import { registerRotateUserGroupToken } from '../user-groups/http/rotate-user-group-token.js';
import { registerUpdateUserGroup } from '../user-groups/http/update-user-group.js';
import { registerMintEmbedSession } from '../embed-sessions/http/mint-embed-session.js';
import { registerRenewEmbedSession } from '../embed-sessions/http/renew-embed-session.js';
import { registerRevokeEmbedSession } from '../embed-sessions/http/revoke-embed-session.js';
import { registerIntrospectEmbedSession } from '../embed-sessions/http/introspect-embed-session.js';
import { registerListEmbedRevocations } from '../embed-sessions/http/list-embed-revocations.js';
import { registerRevokeViewerSessions } from '../viewers/http/revoke-viewer-sessions.js';
import { registerListGroupViewers } from '../viewers/http/list-group-viewers.js';
import { registerGetGroupUsage } from '../usage/http/get-group-usage.js';
import { registerRankUsage } from '../usage/http/rank-usage.js';
import { registerListEvents } from '../events/http/list-events.js';
import { registerListWebhookDeliveries } from '../webhooks/http/list-webhook-deliveries.js';
import { registerRedeliverWebhookEvent } from '../webhooks/http/redeliver-webhook-event.js';
import { registerCreateWebhook } from '../webhooks/http/create-webhook.js';
import { registerListWebhooks } from '../webhooks/http/list-webhooks.js';
import { registerGetWebhook } from '../webhooks/http/get-webhook.js';
import { registerDeleteWebhook } from '../webhooks/http/delete-webhook.js';
import { registerRotateWebhookSecret } from '../webhooks/http/rotate-webhook-secret.js';
import { registerEnableWebhook } from '../webhooks/http/enable-webhook.js';
import { registerCreateDataSource } from '../data-sources/http/create-data-source.js';
import { registerListDataSources } from '../data-sources/http/list-data-sources.js';
import { registerGetDataSource } from '../data-sources/http/get-data-source.js';
import { registerGetDataSourceCredentials } from '../data-sources/http/get-data-source-credentials.js';
import { registerUpdateDataSource } from '../data-sources/http/update-data-source.js';
import { registerDeleteDataSource } from '../data-sources/http/delete-data-source.js';
import { registerCheckDataSource } from '../data-sources/http/check-data-source.js';
import { registerGetMetabaseSettings } from '../metabase/http/get-metabase-settings.js';
import { registerPutMetabaseSettings } from '../metabase/http/put-metabase-settings.js';
import { registerDeleteMetabaseSettings } from '../metabase/http/delete-metabase-settings.js';
import { registerMintMetabaseToken } from '../metabase/http/mint-metabase-token.js';
import { registerGroupActions } from '../user-groups/pages/group-action-routes.js';
import { groupPage, registerGroupPages } from '../user-groups/pages/group-page-routes.js';
import { groupUrl } from '../user-groups/pages/group-urls.js';
import { groupViewers } from '../viewers/pages/group-viewers.js';
import { registerViewerActions } from '../viewers/pages/viewer-action-routes.js';
import { groupUsage } from '../usage/pages/usage-charts.js';
import { registerOverviewPage } from '../usage/pages/overview-routes.js';
import { registerEmbedPreview } from '../embed-sessions/pages/embed-preview-routes.js';
import { registerActivityPage } from '../events/pages/activity-routes.js';
import { registerWebhookActions } from '../webhooks/pages/webhook-action-routes.js';
import { registerWebhookPages } from '../webhooks/pages/webhook-page-routes.js';
import { registerDataSourcePages } from '../data-sources/pages/data-source-page-routes.js';
import { registerDataSourceActions } from '../data-sources/pages/data-source-action-routes.js';
import { registerMetabasePage } from '../metabase/pages/metabase-page-routes.js';

/*
 * The one table of what the service serves for its concepts: every /api route and every console page, each
 * registered by its concept's register function with the services it uses and nothing more (never the core). A
 * new route or page is a line here. The /api routes register in the order the OpenAPI document lists them.
 */

/** The /api routes: every one authenticated, and never cached since they carry tokens. */
export async function apiRoutes(app: TypedApp, options: { services: Core; limits: SharedLimits }): Promise<void> {
  const { services } = options;
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('cache-control', 'no-store');
    done();
  });
  app.addHook('onRequest', authenticate(services.apiKeys, options.limits.throttle));
  if (options.limits.perKeyRateLimit) await app.register(rateLimit, options.limits.perKeyRateLimit);
  registerGetOrCreateUserGroup(app, services.userGroups);
  registerHeadUserGroup(app, services.userGroups);
  registerUpdateUserGroup(app, services.userGroups);
  registerRotateUserGroupToken(app, services.userGroups);
  registerDeleteUserGroup(app, services.userGroups);
  registerListUserGroups(app, services.userGroups);
  registerGetUserGroup(app, services.userGroups);
  registerListDescendants(app, services.userGroups);
  registerMintEmbedSession(app, services.embedSessions);
  registerRenewEmbedSession(app, services.embedSessions);
  registerRevokeEmbedSession(app, services.embedSessions);
  registerIntrospectEmbedSession(app, services.embedSessions);
  registerListEmbedRevocations(app, services.embedSessions);
  registerRevokeViewerSessions(app, services.viewers);
  registerListGroupViewers(app, services.viewers);
  registerGetGroupUsage(app, services.usage);
  registerRankUsage(app, services.usage);
  registerListEvents(app, services.events);
  registerCreateWebhook(app, services.webhooks);
  registerListWebhooks(app, services.webhooks);
  registerGetWebhook(app, services.webhooks);
  registerDeleteWebhook(app, services.webhooks);
  registerRotateWebhookSecret(app, services.webhooks);
  registerEnableWebhook(app, services.webhooks);
  registerListWebhookDeliveries(app, services.webhooks);
  registerRedeliverWebhookEvent(app, services.webhooks);
  registerCreateDataSource(app, services.dataSources);
  registerListDataSources(app, services.dataSources);
  registerGetDataSource(app, services.dataSources);
  registerGetDataSourceCredentials(app, services.dataSources);
  registerUpdateDataSource(app, services.dataSources);
  registerDeleteDataSource(app, services.dataSources);
  await registerCheckDataSource(app, services.dataSources);
  registerGetMetabaseSettings(app, services.metabase);
  registerPutMetabaseSettings(app, services.metabase);
  registerDeleteMetabaseSettings(app, services.metabase);
  registerMintMetabaseToken(app, services.metabase);
  registerListCustomersV2(app, services.customers);
  registerListCustomers(app, services.customers);
  registerGetCustomer(app, services.customers);
  registerCreateCustomer(app, services.customers);
  registerUpdateCustomer(app, services.customers);
  registerDeleteCustomer(app, services.customers);
  registerRefreshCustomerToken(app, services.customers);
  registerConfigureCustomerPortal(app);
  registerGenerateJwt(app, services.customerEmbedTokens);
  registerListGroupTags(app, services.groupTags);
  registerCreateGroupTag(app, services.groupTags);
  registerRenameGroupTag(app, services.groupTags);
  registerDeleteGroupTag(app, services.groupTags);
}

/**
 * The console's pages past sign-in, registered inside its plugin (console/pages/console-plugin.ts: sessions,
 * CSRF, its own error pages). A group's page shows what other concepts draw of the group (its viewers, its usage),
 * and their actions on it (a preview session, ending a viewer's sessions) answer with that page. A data source's page links
 * to the groups that map to it, by the URL handed in here (groups are a layer above data sources).
 */
export function consolePages(app: FastifyInstance, services: Core): void {
  const page = groupPage(services.userGroups, [
    groupViewers(services.viewers),
    groupUsage(services.usage),
    groupCustomer(services.customers, services.groupTags),
  ]);
  registerGroupPages(app, services.userGroups, page);
  registerGroupActions(app, services.userGroups, page);
  registerEmbedPreview(app, services.embedSessions, page);
  registerViewerActions(app, services.viewers, page);
  registerActivityPage(app, services.audit, services.events);
  registerOverviewPage(app, services.usage);
  registerWebhookPages(app, services.webhooks);
  registerWebhookActions(app, services.webhooks);
  registerDataSourcePages(app, services.dataSources, { groupUrl });
  registerDataSourceActions(app, services.dataSources, { groupUrl });
  registerMetabasePage(app, services.metabase);
  registerCustomerActions(app, services.customers, page);
  registerGroupTagPages(app, services.groupTags);
}
