import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ApiKeyRecord } from '../api-keys/api-key.js';
import { ACCESS_LEVELS } from '../api-keys/api-key.js';
import { AUDIT_ACTIONS, type AuditRecord } from '../audit/audit.js';
import { ENVIRONMENTS } from '../kernel/environment.js';
import type { UserGroupRecord } from '../user-groups/user-group.js';

/**
 * The JSON-lines format of `ugs export` / `ugs import`: a header, every group,
 * every key (hashes only), every audit record, and a trailer with the counts so a truncated file
 * is refused. Binary values are base64. Version it when the shape changes.
 */
export const EXPORT_FORMAT = 'user-group-service-export';
export const EXPORT_VERSION = 1;

const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' });
const Timestamp = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' });
const Environment = Type.Union(ENVIRONMENTS.map((e) => Type.Literal(e)));

export const HeaderLine = Type.Object({
  type: Type.Literal('header'),
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Literal(EXPORT_VERSION),
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
  audit_records: Type.Integer({ minimum: 0 }),
});

export const ExportLine = Type.Union([HeaderLine, UserGroupLine, ApiKeyLine, AuditLine, TrailerLine]);
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
  };
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
  const schema = [HeaderLine, UserGroupLine, ApiKeyLine, AuditLine, TrailerLine].find((s) => s.properties.type.const === type);
  const error = schema ? Value.Errors(schema, value).First() : undefined;
  throw new Error(error ? `${error.path || 'line'} ${error.message}` : `unknown record type ${JSON.stringify(type)}`);
}
