import type { AuditAction } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';

/**
 * What an event says happened. The audited actions, plus the signing key
 * rotation (written by `ugs signing-keys rotate` into the rotated key's
 * environment's outbox). Values are stable: they are stored and delivered.
 */
export const EVENT_TYPES = [
  'user_group.created',
  'user_group.updated',
  'user_group.token_rotated',
  'user_group.deleted',
  'user_group.moved',
  'embed_session.revoked',
  'viewer.sessions_revoked',
  'api_key.created',
  'api_key.revoked',
  'signing_key.rotated',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.enabled',
  'webhook.disabled',
  'data_source.created',
  'data_source.updated',
  'data_source.deleted',
  'metabase.configured',
  'metabase.removed',
  'group_tag.created',
  'group_tag.renamed',
  'group_tag.deleted',
] as const satisfies readonly (AuditAction | 'signing_key.rotated')[];
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What an event's `data` holds: names, never values. No token, API key,
 * secret or property value ever goes in; `changed` lists field names only.
 */
export interface EventData {
  api_environment_tag: Environment;
  user_group_id?: string;
  team_id?: number;
  api_key_id?: string;
  webhook_id?: string;
  /** viewer.sessions_revoked: the viewer whose sessions ended. */
  viewer_id?: string;
  /** data_source.*: the data source concerned (its caller-supplied id). */
  data_source_id?: string;
  /** user_group.updated, user_group.moved, data_source.updated, metabase.configured: the changed field names. */
  changed?: string[];
  /** signing_key.rotated: the new key's `kid`, and when it starts signing (until then the previous key signs). */
  signing_key_id?: string;
  activates_at?: string;
  /** user_group.updated by a rename (the Customer API's new_provided_id): the id it had. */
  previous_user_group_id?: string;
  /** group_tag.*: the tag concerned (before a rename), and group_tag.renamed its new name. */
  group_tag?: string;
  new_group_tag?: string;
}

/**
 * One event of the outbox, written in the transaction of the change it
 * reports. `sequence` is the commit order within the store (the cursor of
 * GET /api/events); `id` is what a receiver deduplicates on.
 */
export interface EventRecord {
  id: string;
  sequence: number;
  environment: Environment;
  type: EventType;
  timestamp: string;
  data: EventData;
}

/** The wire payload of an event, as GET /api/events and (later) webhook deliveries send it. */
export interface EventPayload {
  type: EventType;
  timestamp: string;
  data: EventData;
}
