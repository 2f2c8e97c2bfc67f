import type { AuditContext } from './audit.js';
import type { Environment } from './environment.js';
import type { Mapping, Properties, UserGroupRecord } from './user-group.js';

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
 * The storage UserGroupService needs: a port, implemented in src/store for
 * each database and held to it by the store conformance suite. Every write
 * that changes something appends one audit record in the same transaction;
 * a write that changes nothing appends none.
 */
export interface UserGroupStore {
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
}
