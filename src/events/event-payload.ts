import type { Environment } from '../kernel/environment.js';
import type { EventData, EventPayload, EventRecord, EventType } from './event.js';

/** The types whose `data` lists the changed field names. */
const WITH_CHANGED: ReadonlySet<EventType> = new Set([
  'user_group.updated',
  'user_group.moved',
  'data_source.updated',
  'metabase.configured',
]);

/** What a change is about: a group, a key (named by `keyId` of the change's audit context) or a webhook. */
export interface EventSubject {
  environment: Environment;
  teamId: number | null;
  providedId: string | null;
  /** For webhook events, the webhook concerned. */
  webhookId?: string | null;
  /** For viewer events, the viewer concerned. */
  viewerId?: string | null;
  /** For data source events, the data source concerned. */
  dataSourceId?: string | null;
  /** For group tag events, the tag concerned and a rename's new name. */
  groupTag?: string;
  newGroupTag?: string;
}

/**
 * An event's `data`: the group (or key) named, and for updates and moves the
 * changed field names (`change.fields`). Built from names alone, so no secret
 * or property value can reach it.
 */
export function eventData(type: EventType, subject: EventSubject, change: { keyId: string | null; fields: readonly string[] }): EventData {
  const data: EventData = { api_environment_tag: subject.environment };
  if (type.startsWith('webhook.')) {
    if (subject.webhookId) data.webhook_id = subject.webhookId;
    return data;
  }
  if (type.startsWith('viewer.')) {
    if (subject.viewerId) data.viewer_id = subject.viewerId;
    return data;
  }
  if (type.startsWith('data_source.')) {
    if (subject.dataSourceId) data.data_source_id = subject.dataSourceId;
    if (WITH_CHANGED.has(type)) data.changed = [...change.fields];
    return data;
  }
  // The environment's Metabase settings: the environment alone names them; `changed` never holds the key, only "secret_key".
  if (type.startsWith('metabase.')) {
    if (WITH_CHANGED.has(type)) data.changed = [...change.fields];
    return data;
  }
  if (type.startsWith('group_tag.')) {
    if (subject.groupTag !== undefined) data.group_tag = subject.groupTag;
    if (subject.newGroupTag !== undefined) data.new_group_tag = subject.newGroupTag;
    return data;
  }
  if (type.startsWith('api_key.')) {
    if (change.keyId !== null) data.api_key_id = change.keyId;
    return data;
  }
  if (subject.providedId !== null) data.user_group_id = subject.providedId;
  if (subject.teamId !== null) data.team_id = subject.teamId;
  if (WITH_CHANGED.has(type)) data.changed = [...change.fields];
  return data;
}

/** signing_key.rotated's `data`: the public key id and its activation time, never key material. */
export function signingKeyRotatedData(environment: Environment, kid: string, activatesAt: string): EventData {
  return { api_environment_tag: environment, signing_key_id: kid, activates_at: activatesAt };
}

/** The payload of a stored event. */
export function eventPayload(event: EventRecord): EventPayload {
  return { type: event.type, timestamp: event.timestamp, data: event.data };
}
