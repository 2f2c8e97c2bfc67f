import type { AuditContext, AuditRecord } from '../audit/audit.js';
import type { NewEmbedRevocation } from './embed-revocation.js';
import type { EventData, EventType } from '../events/event.js';
import { eventData } from '../events/event-payload.js';
import { newEventId } from '../events/event-id.js';

/** An audit record as a write appends it: the store numbers it (`id`). */
export type NewAuditRecord = Omit<AuditRecord, 'id'>;

/** An outbox event as a write appends it: the store gives it its place in the feed (`sequence`). */
export interface NewEvent {
  id: string;
  environment: EventData['api_environment_tag'];
  type: EventType;
  at: string;
  data: EventData;
}

/**
 * Everything a write leaves beside its change, decided here and nowhere else:
 * its audit records, its events and the embed revocations it ends sessions
 * with. A store persists these values in the change's own transaction, as
 * they are, and only when the change happened; it adds nothing but the
 * numbers it assigns (audit ids, feed sequences) and, where only the write
 * itself learns it, the written group's team_id (see GroupWriteConsequences).
 */
export interface WriteConsequences {
  audit: NewAuditRecord[];
  events: NewEvent[];
  revocations: NewEmbedRevocation[];
}

/** What an audited change is about: a group (its team_id null while only the store can know it), a key, a webhook. */
export interface ChangeSubject {
  environment: NewAuditRecord['environment'];
  teamId: number | null;
  providedId: string | null;
  webhookId?: string | null;
  /** A viewer's change (viewer.sessions_revoked) concerns no group. */
  viewerId?: string | null;
  /** A data source's change concerns no group either. */
  dataSourceId?: string | null;
  /** A group tag's change: the tag, and a rename's new name. */
  groupTag?: string;
  newGroupTag?: string;
}

/**
 * An audited change: its audit record and its event (every audited action is
 * an event type). Key changes name the key in both (`keyId` is the key
 * concerned); the audit record never holds a value, only field names.
 */
export function auditedChange(
  action: NewEvent['type'] & NewAuditRecord['action'],
  at: string,
  subject: ChangeSubject,
  audit: AuditContext,
): WriteConsequences {
  const record: NewAuditRecord = {
    at,
    action,
    environment: subject.environment,
    teamId: subject.teamId,
    providedId: subject.providedId,
    keyId: audit.keyId,
    fields: audit.fields,
    clientAddress: audit.clientAddress ?? null,
    webhookId: subject.webhookId ?? null,
    ...(subject.viewerId ? { viewerId: subject.viewerId } : {}),
    ...(subject.dataSourceId ? { dataSourceId: subject.dataSourceId } : {}),
  };
  const data = eventData(action, subject, audit);
  return { audit: [record], events: [{ id: newEventId(), environment: subject.environment, type: action, at, data }], revocations: [] };
}

/** An event no audit record goes with (signing_key.rotated). */
export function unauditedEvent(type: EventType, at: string, data: EventData): WriteConsequences {
  return { audit: [], events: [{ id: newEventId(), environment: data.api_environment_tag, type, at, data }], revocations: [] };
}

/** The consequences of several changes made by one write, in order. */
export function combined(parts: readonly WriteConsequences[]): WriteConsequences {
  return { audit: parts.flatMap((p) => p.audit), events: parts.flatMap((p) => p.events), revocations: parts.flatMap((p) => p.revocations) };
}
