import type { Environment } from './environment.js';
import type { EventData, EventPayload, EventRecord, EventType } from './event.js';

/** The types whose `data` lists the changed field names. */
const WITH_CHANGED: ReadonlySet<EventType> = new Set(['user_group.updated', 'user_group.moved']);

/** What a change is about, as the store's audit append knows it. */
export interface EventSubject {
  environment: Environment;
  teamId: number | null;
  providedId: string | null;
  /** For key events, the key concerned. */
  keyId: string | null;
  /** Names of the fields the change set; never their values. */
  fields: readonly string[];
  /** For webhook events, the webhook concerned. */
  webhookId?: string | null;
}

/**
 * An event's `data`: the group (or key) named, and for updates and moves the
 * changed field names. Built from names alone, so no secret or property value
 * can reach it. PostgreSQL builds the same shape in SQL (migration 006).
 */
export function eventData(type: EventType, subject: EventSubject): EventData {
  const data: EventData = { api_environment_tag: subject.environment };
  if (type.startsWith('webhook.')) {
    if (subject.webhookId) data.webhook_id = subject.webhookId;
    return data;
  }
  if (type.startsWith('api_key.')) {
    if (subject.keyId !== null) data.api_key_id = subject.keyId;
    return data;
  }
  if (subject.providedId !== null) data.user_group_id = subject.providedId;
  if (subject.teamId !== null) data.team_id = subject.teamId;
  if (WITH_CHANGED.has(type)) data.changed = [...subject.fields];
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
