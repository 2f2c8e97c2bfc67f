import type { ApiKeyRecord } from '../domain/api-key.js';
import type { AuditContext, AuditQuery, AuditRecord } from '../domain/audit.js';
import type { Environment } from '../domain/environment.js';
import type { KeyRevocationSignal } from '../domain/key-revocation-signal.js';
import type { Mapping, Properties, UserGroupRecord } from '../domain/user-group.js';

/** A group about to be inserted: everything but the id the store assigns. */
export type NewUserGroup = Omit<UserGroupRecord, 'teamId'>;

/** Fields an update replaces; an absent field keeps its stored value. */
export interface UserGroupChanges {
  name?: string;
  mapping?: Mapping | null;
  properties?: Properties | null;
  updatedAt: string;
}

export interface TokenReplacement {
  teamId: number;
  /** The hash the row must still hold: a concurrent rotation makes this one lose. */
  expectedTokenHash: Buffer;
  tokenHash: Buffer;
  tokenCiphertext: Buffer;
  updatedAt: string;
}

/**
 * Where a store reports a change in its own state that an operator must act
 * on (its file deleted, its disk full): one line per change, never one per
 * call. A pino logger fits.
 */
export interface StoreLog {
  error(message: string): void;
  info(message: string): void;
}

export const SILENT_STORE_LOG: StoreLog = { error: () => {}, info: () => {} };

export interface ImportBatch {
  userGroups: UserGroupRecord[];
  apiKeys: ApiKeyRecord[];
  auditRecords: AuditRecord[];
}

/**
 * Everything the service persists. One implementation per database
 * (`sqlite/`, later `postgres/`), all passing the conformance suite in
 * test/store/store-conformance.ts. Every SQL dialect detail stays behind this
 * interface. Methods are async so a networked database fits the same shape.
 *
 * Every write that changes something appends one audit record in the same
 * transaction (`audit` says who and which fields); a write that changes
 * nothing (a lost race, an unknown id, a second revocation) appends none.
 */
export interface Store {
  /** Answers when the database answers; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /** A value from the store's own settings (e.g. the server secret check), or null. */
  getSetting(name: string): Promise<string | null>;
  /** Stores `value` under `name` unless one is there already; returns the value now stored. */
  putSettingIfAbsent(name: string, value: string): Promise<string>;
  /** Replaces the setting if it still holds `expected`; false otherwise. */
  replaceSetting(name: string, expected: string, value: string): Promise<boolean>;
  /** Stores `value` under `name`, replacing any value there. */
  putSetting(name: string, value: string): Promise<void>;
  /** Every setting whose name starts with `prefix` (taken literally), in name order. */
  listSettings(prefix: string): Promise<{ name: string; value: string }[]>;
  /** Removes the setting; nothing happens when there is none. */
  deleteSetting(name: string): Promise<void>;

  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null>;
  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null>;
  /**
   * Inserts the group unless its (environment, providedId) exists. Atomic: of
   * many concurrent calls for one id exactly one reports `created: true`, and
   * all return the same row.
   */
  insertUserGroupIfAbsent(group: NewUserGroup, audit?: AuditContext): Promise<{ group: UserGroupRecord; created: boolean }>;
  /** Applies `changes`; null when the group does not exist. */
  updateUserGroup(environment: Environment, providedId: string, changes: UserGroupChanges, audit?: AuditContext): Promise<UserGroupRecord | null>;
  /**
   * Re-seals a group's unchanged token (server secret rotation): swaps the
   * ciphertext if the row still holds `expected`; false otherwise (e.g. the
   * token was rotated meanwhile, already under the new secret). Not audited:
   * nothing a caller can see changes.
   */
  replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean>;
  /** Swaps the token if the row still holds `expectedTokenHash`; null otherwise. */
  replaceToken(replacement: TokenReplacement, audit?: AuditContext): Promise<UserGroupRecord | null>;

  /**
   * One page of an environment's groups, newest first (highest team_id first),
   * below `beforeTeamId`; `prefix` keeps groups whose provided id or name
   * starts with it (case-sensitive, the same on every store).
   */
  listUserGroups(environment: Environment, page: { beforeTeamId: number; limit: number; prefix?: string }): Promise<UserGroupRecord[]>;
  /** How many groups each environment has. */
  countUserGroups(): Promise<Record<Environment, number>>;
  /** Deletes the group; null when it does not exist. Its team_id is never handed out again. */
  deleteUserGroup(environment: Environment, providedId: string, deletedAt: string, audit?: AuditContext): Promise<UserGroupRecord | null>;
  /** Up to `limit` groups with team_id above `afterTeamId`, in team_id order (for export). */
  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]>;
  /** True when the store holds no group and no key: the only state `importAll` is meant for. */
  isEmpty(): Promise<boolean>;
  /**
   * Inserts exported records as they are, team_ids included, and `settings`
   * where absent, all in ONE transaction: a failure at any batch leaves the
   * store as it was. Moves the id sequences past the imported ids so new groups
   * never reuse one.
   */
  importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void>;

  insertApiKey(key: ApiKeyRecord, audit?: AuditContext): Promise<void>;
  findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (keeping the first revocation time); false when no such key. */
  revokeApiKey(id: string, revokedAt: string, audit?: AuditContext): Promise<boolean>;
  /**
   * Tells this process's key cache of revocations made through any connection
   * to this store (see KeyRevocationSignal for how exact each store is).
   */
  keyRevocations(): KeyRevocationSignal;
  recordApiKeyUse(id: string, usedAt: string): Promise<void>;

  /** Audit records, oldest first, filtered by group and time. */
  listAuditRecords(query: AuditQuery): Promise<AuditRecord[]>;
  /** Up to `limit` audit records with id above `afterId` (for export). */
  listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]>;
}
