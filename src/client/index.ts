export {
  UserGroupClient,
  type UserGroupClientOptions,
  type UserGroup,
  type UpdatedUserGroup,
  type RotatedUserGroup,
  type UserGroupItem,
  type UserGroupWithLineage,
  type EmbedSession,
  type EmbedSessionRequest,
  type EmbedIntrospection,
  type EmbedRevocationPage,
  type ServiceEvent,
  type EventPage,
  type Webhook,
  type WebhookRequest,
  type WebhookWithSecret,
  type WebhookDelivery,
  type WebhookDeliveryPage,
} from './user-group-client.js';
export { UserGroupServiceError } from './client-error.js';
export type { Transport, WireRequest, WireResponse } from './transport.js';
