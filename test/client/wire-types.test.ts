import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Static } from '@sinclair/typebox';
import type * as Wire from '../../src/client/wire-types.js';
import type { ErrorCode } from '../../src/kernel/errors.js';
import type * as UserGroups from '../../src/user-groups/http/user-group-schemas.js';
import type * as EmbedSessions from '../../src/embed-sessions/http/embed-schemas.js';
import type * as Events from '../../src/events/http/event-schemas.js';
import type * as Webhooks from '../../src/webhooks/http/webhook-schemas.js';
import type * as Viewers from '../../src/viewers/http/viewer-schemas.js';
import type * as Usage from '../../src/usage/http/usage-schemas.js';
import type * as DataSourceSchemas from '../../src/data-sources/http/data-source-schemas.js';
import type { DataSourceUpdate } from '../../src/data-sources/data-source-service.js';
import type * as Metabase from '../../src/metabase/http/metabase-schemas.js';
import type * as Customers from '../../src/customers/http/customer-schemas.js';
import type * as GroupTags from '../../src/group-tags/http/group-tag-schemas.js';
import { WIRE_TYPES, WIRE_TYPES_FILE, wireTypesSource } from '../../scripts/wire-types.js';

/** `true` when each of A and B is assignable to the other: the same values, whatever the type's spelling. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The compile-time half: each written-out type equals its source, so a schema change the client's types miss fails
 * `tsc` here (then run `node dist/scripts/wire-types.js` and rebuild). Keyed by name, so a type WIRE_TYPES adds
 * without a line here fails below.
 */
const SAME = {
  ErrorCode: true satisfies Same<Wire.ErrorCode, ErrorCode>,
  GetOrCreateBody: true satisfies Same<Wire.GetOrCreateBody, UserGroups.GetOrCreateBody>,
  GetOrCreateResponse: true satisfies Same<Wire.GetOrCreateResponse, UserGroups.GetOrCreateResponse>,
  GetResponse: true satisfies Same<Wire.GetResponse, UserGroups.GetResponse>,
  ListResponse: true satisfies Same<Wire.ListResponse, UserGroups.ListResponse>,
  RotateResponse: true satisfies Same<Wire.RotateResponse, UserGroups.RotateResponse>,
  UpdateBody: true satisfies Same<Wire.UpdateBody, UserGroups.UpdateBody>,
  UpdateResponse: true satisfies Same<Wire.UpdateResponse, UserGroups.UpdateResponse>,
  UserGroupItem: true satisfies Same<Wire.UserGroupItem, UserGroups.UserGroupItem>,
  IntrospectResponse: true satisfies Same<Wire.IntrospectResponse, EmbedSessions.IntrospectResponse>,
  MintBody: true satisfies Same<Wire.MintBody, EmbedSessions.MintBody>,
  MintResponse: true satisfies Same<Wire.MintResponse, EmbedSessions.MintResponse>,
  RevocationsResponse: true satisfies Same<Wire.RevocationsResponse, EmbedSessions.RevocationsResponse>,
  EventItem: true satisfies Same<Wire.EventItem, Events.EventItem>,
  EventsResponse: true satisfies Same<Wire.EventsResponse, Events.EventsResponse>,
  CreateWebhookBody: true satisfies Same<Wire.CreateWebhookBody, Webhooks.CreateWebhookBody>,
  DeliveriesResponse: true satisfies Same<Wire.DeliveriesResponse, Webhooks.DeliveriesResponse>,
  DeliveryResponse: true satisfies Same<Wire.DeliveryResponse, Webhooks.DeliveryResponse>,
  Webhook: true satisfies Same<Wire.Webhook, Webhooks.Webhook>,
  WebhookListResponse: true satisfies Same<Wire.WebhookListResponse, Webhooks.WebhookListResponse>,
  WebhookResponse: true satisfies Same<Wire.WebhookResponse, Webhooks.WebhookResponse>,
  WebhookWithSecretResponse: true satisfies Same<Wire.WebhookWithSecretResponse, Webhooks.WebhookWithSecretResponse>,
  GroupViewersResponse: true satisfies Same<Wire.GroupViewersResponse, Viewers.GroupViewersResponse>,
  RevokeViewerResponse: true satisfies Same<Wire.RevokeViewerResponse, Viewers.RevokeViewerResponse>,
  GroupUsageResponse: true satisfies Same<Wire.GroupUsageResponse, Usage.GroupUsageResponse>,
  TopUsageResponse: true satisfies Same<Wire.TopUsageResponse, Usage.TopUsageResponse>,
  CheckResponse: true satisfies Same<Wire.CheckResponse, Static<typeof DataSourceSchemas.CheckResponse>>,
  CreateDataSourceBody: true satisfies Same<Wire.CreateDataSourceBody, DataSourceSchemas.CreateDataSourceBody>,
  CredentialsResponse: true satisfies Same<Wire.CredentialsResponse, Static<typeof DataSourceSchemas.CredentialsResponse>>,
  DataSourceDetailResponse: true satisfies Same<Wire.DataSourceDetailResponse, Static<typeof DataSourceSchemas.DataSourceDetailResponse>>,
  DataSourceResponse: true satisfies Same<Wire.DataSourceResponse, Static<typeof DataSourceSchemas.DataSourceResponse>>,
  DataSourcesResponse: true satisfies Same<Wire.DataSourcesResponse, Static<typeof DataSourceSchemas.DataSourcesResponse>>,
  DataSourceUpdate: true satisfies Same<Wire.DataSourceUpdate, DataSourceUpdate>,
  MetabaseSettingsResponse: true satisfies Same<Wire.MetabaseSettingsResponse, Static<typeof Metabase.MetabaseSettingsResponse>>,
  MintMetabaseTokenBody: true satisfies Same<Wire.MintMetabaseTokenBody, Metabase.MintMetabaseTokenBody>,
  MintMetabaseTokenResponse: true satisfies Same<Wire.MintMetabaseTokenResponse, Static<typeof Metabase.MintMetabaseTokenResponse>>,
  PutMetabaseBody: true satisfies Same<Wire.PutMetabaseBody, Metabase.PutMetabaseBody>,
  CreateCustomerBody: true satisfies Same<Wire.CreateCustomerBody, Customers.CreateCustomerBody>,
  CreateCustomerResponse: true satisfies Same<Wire.CreateCustomerResponse, Static<typeof Customers.CreateCustomerResponse>>,
  CustomerResponse: true satisfies Same<Wire.CustomerResponse, Static<typeof Customers.CustomerResponse>>,
  CustomersV1Response: true satisfies Same<Wire.CustomersV1Response, Static<typeof Customers.CustomersV1Response>>,
  CustomersV2Response: true satisfies Same<Wire.CustomersV2Response, Static<typeof Customers.CustomersV2Response>>,
  GenerateJwtBody: true satisfies Same<Wire.GenerateJwtBody, Customers.GenerateJwtBody>,
  GenerateJwtResponse: true satisfies Same<Wire.GenerateJwtResponse, Static<typeof Customers.GenerateJwtResponse>>,
  ListCustomersQuery: true satisfies Same<Wire.ListCustomersQuery, Customers.ListCustomersFilters>,
  ListCustomersV2Query: true satisfies Same<Wire.ListCustomersV2Query, Static<typeof Customers.ListCustomersV2Query>>,
  UpdateCustomerBody: true satisfies Same<Wire.UpdateCustomerBody, Customers.UpdateCustomerBody>,
  GroupTagResponse: true satisfies Same<Wire.GroupTagResponse, Static<typeof GroupTags.GroupTagResponse>>,
  GroupTagsResponse: true satisfies Same<Wire.GroupTagsResponse, Static<typeof GroupTags.GroupTagsResponse>>,
};

describe('src/client/wire-types.ts', () => {
  it('holds each type of WIRE_TYPES, each checked against its source at compile time above', () => {
    assert.deepEqual(Object.keys(SAME).sort(), Object.values(WIRE_TYPES).flat().sort());
  });

  it('is what scripts/wire-types.ts writes today (regenerate with `node dist/scripts/wire-types.js`)', async () => {
    assert.equal(readFileSync(WIRE_TYPES_FILE, 'utf8'), await wireTypesSource());
  });
});
