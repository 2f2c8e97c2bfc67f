import type { Environment } from '../kernel/environment.js';

/** What an audit record says happened. Values are stable: they are stored and exported. */
export const AUDIT_ACTIONS = [
  'user_group.created',
  'user_group.updated',
  'user_group.moved',
  'user_group.token_rotated',
  'user_group.deleted',
  'api_key.created',
  'api_key.revoked',
  'embed_session.revoked',
  'viewer.sessions_revoked',
  'webhook.created',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.enabled',
  'webhook.disabled',
  'data_source.created',
  'data_source.updated',
  'data_source.deleted',
  'data_source.checked',
  'metabase.configured',
  'metabase.removed',
  'metabase.token_minted',
  'group_tag.created',
  'group_tag.renamed',
  'group_tag.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * One appended record of a write. Never holds a token or key value: only the
 * names of the fields a change set.
 */
export interface AuditRecord {
  id: number;
  at: string;
  action: AuditAction;
  environment: Environment;
  /** The group concerned (null for key events). */
  teamId: number | null;
  providedId: string | null;
  /** For group events the API key that made the change; for key events the key concerned. */
  keyId: string | null;
  /** Names of the fields the change set, e.g. ["name", "properties"]; never their values. */
  fields: string[];
  /**
   * The address of the client that made the change (behind a trusted proxy,
   * the one it forwarded for); null for changes made with the CLI and for
   * records older than this field.
   */
  clientAddress: string | null;
  /** For webhook events, the webhook concerned; absent otherwise. */
  webhookId?: string | null;
  /** For viewer events, the viewer concerned; absent otherwise. */
  viewerId?: string | null;
  /** For data source events, the data source concerned; absent otherwise. */
  dataSourceId?: string | null;
}

/** Who made a change, from where, and which fields it set: what the domain hands the store with every write. */
export interface AuditContext {
  keyId: string | null;
  fields: string[];
  /** See AuditRecord.clientAddress; null when not given. */
  clientAddress?: string | null;
}

export const NO_AUDIT_DETAIL: AuditContext = { keyId: null, fields: [] };

/**
 * Where a change came from: an HTTP request (Fastify's request has this `ip`).
 * Read only when a change is audited, never on a read, so a lookup costs
 * nothing for it (behind a proxy `ip` parses X-Forwarded-For).
 */
export interface ChangeOrigin {
  readonly ip: string | undefined;
}

export interface AuditQuery {
  /** A team_id, or a user_group_id (provided id) in either environment. */
  group?: { teamId: number } | { providedId: string };
  since?: string;
  /** Only this environment's records (the console shows a key its own environment only); all when absent. */
  environment?: Environment;
  /** The latest `limit` records, newest first (the console's activity page, `ugs audit`); oldest first when absent. */
  newestFirst?: boolean;
  /** Only records older than this id: the cursor of the next newest-first page (the last id of the page before). */
  beforeId?: number;
  limit: number;
}
