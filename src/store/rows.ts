import type { Access, ApiKeyRecord } from '../api-keys/api-key.js';
import type { AuditAction, AuditRecord } from '../audit/audit.js';
import type { ConsoleSessionRecord } from '../console/console-session.js';
import type { EventRecord, EventType } from '../events/event.js';
import type { EmbedSessionRecord } from '../embed-sessions/embed-session.js';
import type { EmbedRevocation, RevocationReason } from '../consequences/embed-revocation.js';
import type { SessionActivityCount } from '../embed-sessions/session-activity.js';
import type { GroupUsage, UsageBucket } from '../usage/usage.js';
import type { Environment } from '../kernel/environment.js';
import type { UserGroupRecord } from '../user-groups/user-group.js';
import type { ViewerActivity } from '../viewers/viewer.js';
import { fromJsonColumn } from './json-column.js';

/**
 * Rows as both stores return them: SQLite keeps integers and ISO-8601 text, and the PostgreSQL pool reads BIGINT
 * and TIMESTAMPTZ the same way (postgres-types.ts), so one mapper serves both.
 */
export interface UserGroupRow {
  team_id: number;
  environment: string;
  provided_id: string;
  name: string;
  mapping: string | null;
  properties: string | null;
  token_hash: Buffer;
  token_ciphertext: Buffer;
  created_at: string;
  updated_at: string;
  parent_team_id: number | null;
  emails: string | null;
  /** 0 or 1 on SQLite, a boolean on PostgreSQL. */
  is_demo_group: number | boolean;
  hierarchy_level: string | null;
  group_tags: string | null;
  /** The parent's provided id, where a statement joins it in. */
  parent_provided_id?: string | null;
}

export interface ApiKeyRow {
  id: string;
  name: string | null;
  environment: string;
  access: string;
  key_hash: Buffer;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function toUserGroupRecord(row: UserGroupRow): UserGroupRecord {
  const record: UserGroupRecord = {
    teamId: row.team_id,
    environment: row.environment as Environment,
    providedId: row.provided_id,
    name: row.name,
    mapping: row.mapping === null ? null : JSON.parse(row.mapping),
    properties: row.properties === null ? null : JSON.parse(row.properties),
    tokenHash: row.token_hash,
    tokenCiphertext: row.token_ciphertext,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  // A root's record is what it was before groups had parents.
  if (row.parent_team_id !== null && row.parent_team_id !== undefined) {
    record.parentTeamId = row.parent_team_id;
    record.parentId = row.parent_provided_id ?? null;
  }
  // Set only where a value was given: a group the Customer API never touched reads as before it existed.
  if (row.emails !== null && row.emails !== undefined) record.emails = JSON.parse(row.emails);
  if (row.is_demo_group) record.isDemoGroup = true;
  if (row.hierarchy_level !== null && row.hierarchy_level !== undefined) record.hierarchyLevel = row.hierarchy_level;
  if (row.group_tags !== null && row.group_tags !== undefined) record.groupTags = JSON.parse(row.group_tags);
  return record;
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    environment: row.environment as Environment,
    access: row.access as Access,
    keyHash: row.key_hash,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export interface AuditRow {
  id: number;
  at: string;
  action: string;
  environment: string;
  team_id: number | null;
  provided_id: string | null;
  key_id: string | null;
  fields: string;
  client_address: string | null;
  webhook_id?: string | null;
  viewer_id?: string | null;
  data_source_id?: string | null;
}

export function toAuditRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    at: row.at,
    action: row.action as AuditAction,
    environment: row.environment as Environment,
    teamId: row.team_id,
    providedId: row.provided_id,
    keyId: row.key_id,
    fields: JSON.parse(row.fields),
    clientAddress: row.client_address,
    // Only webhook records have it, so every other record reads as it always did.
    ...(row.webhook_id ? { webhookId: row.webhook_id } : {}),
    ...(row.viewer_id ? { viewerId: row.viewer_id } : {}),
    ...(row.data_source_id ? { dataSourceId: row.data_source_id } : {}),
  };
}

export interface EventRow {
  sequence: number;
  id: string;
  environment: string;
  type: string;
  at: string;
  /** Text on SQLite; jsonb, which pg parses, on PostgreSQL. */
  data: string | EventRecord['data'];
}

export function toEventRecord(row: EventRow): EventRecord {
  return {
    id: row.id,
    sequence: row.sequence,
    environment: row.environment as Environment,
    type: row.type as EventType,
    timestamp: row.at,
    data: fromJsonColumn(row.data),
  };
}

export interface ConsoleSessionRow {
  id_hash: Buffer;
  key_id: string;
  environment: string;
  access: string;
  created_at: string;
  last_seen_at: string;
}

export function toConsoleSessionRecord(row: ConsoleSessionRow): ConsoleSessionRecord {
  return {
    idHash: row.id_hash,
    keyId: row.key_id,
    environment: row.environment as Environment,
    access: row.access as Access,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  };
}

export interface EmbedSessionRow {
  session_id: string;
  environment: string;
  team_id: number;
  provided_id: string;
  token_version: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export function toEmbedSession(row: EmbedSessionRow): EmbedSessionRecord {
  return {
    sessionId: row.session_id,
    environment: row.environment as Environment,
    teamId: row.team_id,
    providedId: row.provided_id,
    tokenVersion: row.token_version,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

export interface EmbedRevocationRow {
  sequence: number;
  environment: string;
  session_id: string | null;
  provided_id: string | null;
  token_version: string | null;
  viewer_id: string | null;
  reason: string;
  revoked_at: string;
  expires_at: string;
}

export function toEmbedRevocation(row: EmbedRevocationRow): EmbedRevocation {
  return {
    sequence: row.sequence,
    environment: row.environment as Environment,
    sessionId: row.session_id,
    providedId: row.provided_id,
    tokenVersion: row.token_version,
    viewerId: row.viewer_id,
    reason: row.reason as RevocationReason,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
  };
}

export interface ViewerActivityRow {
  environment: string;
  team_id: number;
  viewer_id: string;
  first_seen_at: string;
  last_seen_at: string;
  sessions: number;
}

export function toViewerActivity(row: ViewerActivityRow): ViewerActivity {
  return {
    environment: row.environment as Environment,
    teamId: row.team_id,
    viewerId: row.viewer_id,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
    sessions: row.sessions,
  };
}

export interface SessionActivityRow {
  environment: string;
  team_id: number;
  hour_start: string;
  minted: number;
  renewed: number;
  last_minted_at: string | null;
}

export function toSessionActivity(row: SessionActivityRow): SessionActivityCount {
  return {
    environment: row.environment as Environment,
    teamId: row.team_id,
    hourStart: row.hour_start,
    minted: row.minted,
    renewed: row.renewed,
    lastMintedAt: row.last_minted_at,
  };
}

export interface UsageBucketRow {
  start: string;
  sessions: number;
  renewals: number;
}

export interface GroupUsageRow {
  team_id: number;
  provided_id: string;
  name: string;
  sessions: number;
  renewals: number;
  viewers: number;
  last_session_at: string | null;
}

export function toGroupUsage(row: GroupUsageRow): GroupUsage {
  return {
    teamId: row.team_id,
    userGroupId: row.provided_id,
    name: row.name,
    sessions: row.sessions,
    renewals: row.renewals,
    viewers: row.viewers,
    lastSessionAt: row.last_session_at,
  };
}

/** A store's two reads of a range (the counts' buckets, the distinct viewers' buckets) as one list, oldest first. */
export function mergeUsageBuckets(
  counts: readonly UsageBucketRow[],
  viewers: readonly { start: string; viewers: number }[],
): UsageBucket[] {
  const buckets = new Map<string, UsageBucket>();
  for (const row of counts) buckets.set(row.start, { start: row.start, sessions: row.sessions, renewals: row.renewals, viewers: 0 });
  for (const row of viewers) {
    const bucket = buckets.get(row.start);
    if (bucket) bucket.viewers = row.viewers;
    // Both are written in one transaction, but the retention may forget a count's hour and not yet its viewers.
    else buckets.set(row.start, { start: row.start, sessions: 0, renewals: 0, viewers: row.viewers });
  }
  return [...buckets.values()].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}
