import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ApiKeyRecord } from '../api-keys/api-key.js';
import { ACCESS_LEVELS } from '../api-keys/api-key.js';
import { AUDIT_ACTIONS, type AuditRecord } from '../audit/audit.js';
import { DATA_SOURCE_KINDS, SSL_MODES, type DataSourceRecord } from '../data-sources/data-source.js';
import { GROUP_TAG_LIMITS, type GroupTagRecord } from '../group-tags/group-tag.js';
import { ENVIRONMENTS } from '../kernel/environment.js';
import type { MetabaseSettingsRecord } from '../metabase/metabase-settings.js';
import type { UserGroupRecord } from '../user-groups/user-group.js';

/**
 * The JSON-lines format of `ugs export` / `ugs import`: a header, every group tag, every group (with the Customer
 * API's fields it has), every key (hashes only), every data source (its password sealed, or left out), each
 * environment's Metabase settings (the embedding secret key sealed), every audit record, and a trailer with the
 * counts so a truncated file is refused. Binary values are base64. Version it when the shape
 * changes; every earlier version stays importable.
 */
export const EXPORT_FORMAT = 'user-group-service-export';
/**
 * 2: data sources (and their count in the trailer). 3: Metabase settings (and their count). 4: group tags (and
 * their count), and a group's emails, demo flag, hierarchy level and tags (each only where set, so a group without
 * them has the line it had). An earlier file has none of what came later and imports as ever.
 */
export const EXPORT_VERSION = 4;
const IMPORTABLE_VERSIONS = [1, 2, 3, 4] as const;

const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' });
const Timestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' });
const Environment = Type.Union(ENVIRONMENTS.map((e) => Type.Literal(e)));

export const HeaderLine = Type.Object({
  type: Type.Literal('header'),
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Union(IMPORTABLE_VERSIONS.map((v) => Type.Literal(v))),
  exported_at: Type.String(),
  server_secret_check: Type.String(),
});

export const UserGroupLine = Type.Object({
  type: Type.Literal('user_group'),
  team_id: Type.Integer({ minimum: 1 }),
  environment: Environment,
  provided_id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  mapping: Type.Union([Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()])), Type.Null()]),
  properties: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  token_hash: Base64,
  token_ciphertext: Base64,
  created_at: Timestamp,
  updated_at: Timestamp,
  /** The parent's team_id; absent for a root. Parents come before their children. */
  parent_team_id: Type.Optional(Type.Integer({ minimum: 1 })),
  // The Customer API's fields (version 4), each only where set; group_tags name group_tag lines of the environment.
  // Each list as the Customer API keeps one: no entry twice, no more tags than a group may carry.
  emails: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true })),
  is_demo_group: Type.Optional(Type.Literal(true)),
  hierarchy_level: Type.Optional(Type.String({ minLength: 1 })),
  group_tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true, maxItems: GROUP_TAG_LIMITS.perGroupMax })),
});

/** A group tag (version 4); tags come before the groups that carry them. */
export const GroupTagLine = Type.Object({
  type: Type.Literal('group_tag'),
  environment: Environment,
  name: Type.String({ minLength: 1 }),
  created_at: Timestamp,
});

export const ApiKeyLine = Type.Object({
  type: Type.Literal('api_key'),
  id: Type.String({ minLength: 1 }),
  name: Type.Union([Type.String(), Type.Null()]),
  environment: Environment,
  access: Type.Union(ACCESS_LEVELS.map((a) => Type.Literal(a))),
  key_hash: Base64,
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});

export const DataSourceLine = Type.Object({
  type: Type.Literal('data_source'),
  environment: Environment,
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  kind: Type.Union(DATA_SOURCE_KINDS.map((k) => Type.Literal(k))),
  connection: Type.Object({
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 1, maximum: 65_535 }),
    database: Type.String({ minLength: 1 }),
    user: Type.String({ minLength: 1 }),
    ssl: Type.Object({ mode: Type.Union(SSL_MODES.map((m) => Type.Literal(m))), ca: Type.Optional(Type.String()) }),
  }),
  /** Sealed under the server secret for this environment and id (dataSourcePasswordSealContext); null: none, or left out. */
  password_ciphertext: Type.Union([Base64, Type.Null()]),
  /** Present (true) only where the data source had a password that `ugs export --without-data-source-passwords` left out. */
  password_left_out: Type.Optional(Type.Literal(true)),
  version: Type.Integer({ minimum: 1 }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MetabaseSettingsLine = Type.Object({
  type: Type.Literal('metabase_settings'),
  environment: Environment,
  site_url: Type.String({ minLength: 1 }),
  /** Sealed under the server secret for this environment (metabaseSecretSealContext): never the key itself. */
  secret_key_ciphertext: Base64,
  max_expires_in: Type.Integer({ minimum: 1 }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AuditLine = Type.Object({
  type: Type.Literal('audit'),
  id: Type.Integer({ minimum: 1 }),
  at: Timestamp,
  action: Type.Union(AUDIT_ACTIONS.map((a) => Type.Literal(a))),
  environment: Environment,
  team_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  provided_id: Type.Union([Type.String(), Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
  fields: Type.Array(Type.String()),
  // Optional: exports made before the audit log had it still import (as null).
  client_address: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  // Only on webhook.* records.
  webhook_id: Type.Optional(Type.String()),
  // Only on viewer.* records.
  viewer_id: Type.Optional(Type.String()),
  // Only on data_source.* records.
  data_source_id: Type.Optional(Type.String()),
});

export const TrailerLine = Type.Object({
  type: Type.Literal('end'),
  user_groups: Type.Integer({ minimum: 0 }),
  api_keys: Type.Integer({ minimum: 0 }),
  // Optional: version 1 files have no data sources, and no count of them.
  data_sources: Type.Optional(Type.Integer({ minimum: 0 })),
  // Optional: files before version 3 have no Metabase settings.
  metabase_settings: Type.Optional(Type.Integer({ minimum: 0 })),
  // Optional: files before version 4 have no group tags.
  group_tags: Type.Optional(Type.Integer({ minimum: 0 })),
  audit_records: Type.Integer({ minimum: 0 }),
});

const LINES = [HeaderLine, GroupTagLine, UserGroupLine, ApiKeyLine, DataSourceLine, MetabaseSettingsLine, AuditLine, TrailerLine];
export const ExportLine = Type.Union(LINES);
export type ExportLine = Static<typeof ExportLine>;

export function userGroupLine(g: UserGroupRecord): Static<typeof UserGroupLine> {
  return {
    type: 'user_group',
    team_id: g.teamId,
    environment: g.environment,
    provided_id: g.providedId,
    name: g.name,
    mapping: g.mapping,
    properties: g.properties,
    token_hash: g.tokenHash.toString('base64'),
    token_ciphertext: g.tokenCiphertext.toString('base64'),
    created_at: g.createdAt,
    updated_at: g.updatedAt,
    ...(g.parentTeamId ? { parent_team_id: g.parentTeamId } : {}),
    ...(g.emails ? { emails: g.emails } : {}),
    ...(g.isDemoGroup ? { is_demo_group: true as const } : {}),
    ...(g.hierarchyLevel ? { hierarchy_level: g.hierarchyLevel } : {}),
    ...(g.groupTags ? { group_tags: g.groupTags } : {}),
  };
}

export function groupTagLine(t: GroupTagRecord): Static<typeof GroupTagLine> {
  return { type: 'group_tag', environment: t.environment, name: t.name, created_at: t.createdAt };
}

export function groupTagFromLine(l: Static<typeof GroupTagLine>): GroupTagRecord {
  return { environment: l.environment, name: l.name, createdAt: l.created_at };
}

export function apiKeyLine(k: ApiKeyRecord): Static<typeof ApiKeyLine> {
  return {
    type: 'api_key',
    id: k.id,
    name: k.name,
    environment: k.environment,
    access: k.access,
    key_hash: k.keyHash.toString('base64'),
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
  };
}

export function userGroupFromLine(l: Static<typeof UserGroupLine>): UserGroupRecord {
  return {
    teamId: l.team_id,
    environment: l.environment,
    providedId: l.provided_id,
    name: l.name,
    mapping: l.mapping,
    properties: l.properties,
    tokenHash: Buffer.from(l.token_hash, 'base64'),
    tokenCiphertext: Buffer.from(l.token_ciphertext, 'base64'),
    createdAt: l.created_at,
    updatedAt: l.updated_at,
    ...(l.parent_team_id === undefined ? {} : { parentTeamId: l.parent_team_id }),
    ...(l.emails === undefined ? {} : { emails: l.emails }),
    ...(l.is_demo_group === undefined ? {} : { isDemoGroup: true }),
    ...(l.hierarchy_level === undefined ? {} : { hierarchyLevel: l.hierarchy_level }),
    ...(l.group_tags === undefined ? {} : { groupTags: l.group_tags }),
  };
}

export function apiKeyFromLine(l: Static<typeof ApiKeyLine>): ApiKeyRecord {
  return {
    id: l.id,
    name: l.name,
    environment: l.environment,
    access: l.access,
    keyHash: Buffer.from(l.key_hash, 'base64'),
    createdAt: l.created_at,
    lastUsedAt: l.last_used_at,
    revokedAt: l.revoked_at,
  };
}

/** A data source's line: its password sealed as stored, or left out (`withPassword` false), never in plaintext. */
export function dataSourceLine(d: DataSourceRecord, withPassword: boolean): Static<typeof DataSourceLine> {
  const leftOut = !withPassword && d.passwordCiphertext !== null;
  return {
    type: 'data_source',
    environment: d.environment,
    id: d.id,
    name: d.name,
    kind: d.kind,
    connection: d.connection,
    password_ciphertext: withPassword && d.passwordCiphertext !== null ? d.passwordCiphertext.toString('base64') : null,
    ...(leftOut ? { password_left_out: true as const } : {}),
    version: d.version,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export function dataSourceFromLine(l: Static<typeof DataSourceLine>): DataSourceRecord {
  const { host, port, database, user, ssl } = l.connection;
  return {
    environment: l.environment,
    id: l.id,
    name: l.name,
    kind: l.kind,
    // Field by field: what else a line's object holds is not stored.
    connection: { host, port, database, user, ssl: ssl.ca === undefined ? { mode: ssl.mode } : { mode: ssl.mode, ca: ssl.ca } },
    passwordCiphertext: l.password_ciphertext === null ? null : Buffer.from(l.password_ciphertext, 'base64'),
    version: l.version,
    createdAt: l.created_at,
    updatedAt: l.updated_at,
  };
}

/** An environment's Metabase settings: the embedding secret key sealed as stored, never in plaintext. */
export function metabaseSettingsLine(m: MetabaseSettingsRecord): Static<typeof MetabaseSettingsLine> {
  return {
    type: 'metabase_settings',
    environment: m.environment,
    site_url: m.siteUrl,
    secret_key_ciphertext: m.secretCiphertext.toString('base64'),
    max_expires_in: m.maxExpiresIn,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function metabaseSettingsFromLine(l: Static<typeof MetabaseSettingsLine>): MetabaseSettingsRecord {
  return {
    environment: l.environment,
    siteUrl: l.site_url,
    secretCiphertext: Buffer.from(l.secret_key_ciphertext, 'base64'),
    maxExpiresIn: l.max_expires_in,
    createdAt: l.created_at,
    updatedAt: l.updated_at,
  };
}

export function auditLine(a: AuditRecord): Static<typeof AuditLine> {
  return {
    type: 'audit',
    id: a.id,
    at: a.at,
    action: a.action,
    environment: a.environment,
    team_id: a.teamId,
    provided_id: a.providedId,
    key_id: a.keyId,
    fields: a.fields,
    client_address: a.clientAddress,
    ...(a.webhookId ? { webhook_id: a.webhookId } : {}),
    ...(a.viewerId ? { viewer_id: a.viewerId } : {}),
    ...(a.dataSourceId ? { data_source_id: a.dataSourceId } : {}),
  };
}

export function auditFromLine(l: Static<typeof AuditLine>): AuditRecord {
  return {
    id: l.id,
    at: l.at,
    action: l.action,
    environment: l.environment,
    teamId: l.team_id,
    providedId: l.provided_id,
    keyId: l.key_id,
    fields: l.fields,
    clientAddress: l.client_address ?? null,
    ...(l.webhook_id === undefined ? {} : { webhookId: l.webhook_id }),
    ...(l.viewer_id === undefined ? {} : { viewerId: l.viewer_id }),
    ...(l.data_source_id === undefined ? {} : { dataSourceId: l.data_source_id }),
  };
}

/** Parses and checks one line; the message names what is wrong. */
export function parseExportLine(text: string): ExportLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  if (Value.Check(ExportLine, value)) return value;
  const type = (value as { type?: unknown } | null)?.type;
  const schema = LINES.find((s) => s.properties.type.const === type);
  const error = schema ? Value.Errors(schema, value).First() : undefined;
  throw new Error(error ? `${error.path || 'line'} ${error.message}` : `unknown record type ${JSON.stringify(type)}`);
}
