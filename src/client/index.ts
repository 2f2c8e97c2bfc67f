export {
  UserGroupClient,
  type UserGroupClientOptions,
  type UserGroup,
  type UpdatedUserGroup,
  type RotatedUserGroup,
  type UserGroupItem,
  type UserGroupWithLineage,
  type ResolvedMappingEntry,
  type EmbedSession,
  type EmbedSessionRequest,
  type EmbedIntrospection,
  type EmbedRevocationPage,
  type ViewerRevocation,
  type GroupViewer,
  type GroupViewerPage,
  type UsageBucket,
  type UsageRangeOptions,
  type GroupUsageTotals,
  type TopUsage,
  type ServiceEvent,
  type EventPage,
  type Webhook,
  type WebhookRequest,
  type WebhookWithSecret,
  type WebhookDelivery,
  type WebhookDeliveryPage,
} from './user-group-client.js';
export {
  DataSourceClient,
  type DataSource,
  type DataSourceWithGroups,
  type DataSourcePage,
  type DataSourceRequest,
  type DataSourceChanges,
  type DataSourceCheck,
  type DataSourceCredentials,
} from './data-source-client.js';
export { MetabaseClient, type MetabaseSettings, type MetabaseTokenRequest, type MetabaseToken } from './metabase-client.js';
export {
  CustomerClient,
  type Customer,
  type CustomerRequest,
  type CustomerChanges,
  type CustomerFilters,
  type CustomerPage,
  type CustomerJwtRequest,
} from './customer-client.js';
export { GroupTagClient, type GroupTag } from './group-tag-client.js';
export { UserGroupServiceError } from './client-error.js';
export type { Transport, WireRequest, WireResponse } from './transport.js';
