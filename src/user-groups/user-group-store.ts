import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { Mapping, Properties, UserGroupRecord } from './user-group.js';

/** A group about to be inserted: everything but the ids the store assigns; `parentId` names the parent by its provided id. */
export type NewUserGroup = Omit<UserGroupRecord, 'teamId' | 'parentTeamId'>;

/** Fields an update replaces; an absent field keeps its stored value. */
export interface UserGroupChanges {
  name?: string;
  mapping?: Mapping | null;
  properties?: Properties | null;
  /** The new parent's provided id, or null to detach; a change of parent is a move. */
  parentId?: string | null;
  /**
   * A new provided id (a rename) with the token re-sealed under it (the seal binds the id), applied only while the
   * row still holds `expectedTokenHash`: a rotation in between makes the rename change nothing (null). A taken id
   * is a 409 `conflict`.
   */
  rename?: { providedId: string; tokenCiphertext: Buffer; expectedTokenHash: Buffer };
  /** The Customer API's fields (null clears a nullable one). */
  emails?: string[] | null;
  isDemoGroup?: boolean;
  hierarchyLevel?: string | null;
  groupTags?: string[] | null;
  updatedAt: string;
}

/** A group and its ancestors, root first, as one read gives them. */
export interface UserGroupLineage {
  group: UserGroupRecord;
  ancestors: UserGroupRecord[];
}

export interface TokenReplacement {
  teamId: number;
  /** The group's environment and provided id, as found by its current token: what the rotation's consequences name. */
  environment: Environment;
  providedId: string;
  /** The hash the row must still hold: a concurrent rotation makes this one lose. */
  expectedTokenHash: Buffer;
  tokenHash: Buffer;
  tokenCiphertext: Buffer;
  updatedAt: string;
}

/**
 * What a create or an update leaves (user-group-consequences.ts), as a
 * function of the one fact only the write learns: the team_id of the group it
 * wrote (a create assigns it; an update finds its row by provided id).
 *
 * A store that learns the team_id before it appends calls this with it (SQLite,
 * inside the write's transaction). A store that writes the change and its
 * consequences in one statement (PostgreSQL, so a create or an update costs
 * one round trip) calls it beforehand with `teamId: null`, and that statement
 * sets the written row's team_id on every audit record whose team_id is null
 * and adds `team_id` to every event's data that has none (jsonb keeps no key
 * order, so the data is the same). Both ways store the same values, provided
 * the function uses the team_id only there, as the subject of its audit
 * records and events (as `auditedChange` does), and nowhere else. A store may
 * call it for a write that then changes nothing, or more than once for one
 * write (a batch retried input by input), so it must have no effect of its
 * own; what it returns is appended only for a write that happened.
 */
export type GroupWriteConsequences = (written: { teamId: number | null }) => WriteConsequences;

/** What a deletion leaves, as a function of the groups it deletes (children before their parents): only the write knows its subtree. */
export type GroupsDeletedConsequences = (deleted: readonly UserGroupRecord[]) => WriteConsequences;

/**
 * The storage UserGroupService needs: a port, implemented in src/store for
 * each database and held to it by the store conformance suite. The service
 * decides what each write leaves (user-group-consequences.ts) and hands it
 * over as values, or as a function of what only the write learns; a write
 * that changes something appends exactly that in its own transaction, adding
 * only the numbers the store assigns, and a write that changes nothing (a lost
 * race, an unknown group, a stale token) appends nothing.
 */
export interface UserGroupStore {
  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null>;
  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null>;
  /** The group a team id names in the environment (ending a session by id: the id carries its group's team id). */
  findUserGroupByTeamId(environment: Environment, teamId: number): Promise<UserGroupRecord | null>;
  /**
   * Inserts the group unless its (environment, providedId) exists. Atomic: of
   * many concurrent calls for one id exactly one reports `created: true`, and
   * all return the same row.
   */
  insertUserGroupIfAbsent(group: NewUserGroup, consequences: GroupWriteConsequences): Promise<{ group: UserGroupRecord; created: boolean }>;
  /**
   * Applies `changes`; null when the group does not exist. A change of parent
   * is validated in the write's own transaction (see user-group-hierarchy.ts):
   * 400 for an unknown parent, 409 `conflict` for a cycle or a chain too deep.
   */
  updateUserGroup(
    environment: Environment,
    providedId: string,
    changes: UserGroupChanges,
    consequences: GroupWriteConsequences,
  ): Promise<UserGroupRecord | null>;
  /** Swaps the token if the row still holds `expectedTokenHash`; null otherwise. */
  replaceToken(replacement: TokenReplacement, consequences: WriteConsequences): Promise<UserGroupRecord | null>;
  /**
   * One page of an environment's groups, newest first (highest team_id first),
   * below `beforeTeamId`; `prefix` keeps groups whose provided id or name
   * starts with it (case-sensitive, the same on every store).
   */
  listUserGroups(
    environment: Environment,
    page: { beforeTeamId: number; limit: number; prefix?: string; parentId?: string },
  ): Promise<UserGroupRecord[]>;
  /** The group and its ancestors in one query (a recursive CTE); null when the group does not exist. */
  findUserGroupLineage(environment: Environment, providedId: string): Promise<UserGroupLineage | null>;
  /** One page of the group's whole subtree (itself excluded), highest team_id first, below `beforeTeamId`. */
  listDescendants(environment: Environment, providedId: string, page: { beforeTeamId: number; limit: number }): Promise<UserGroupRecord[]>;
  /** How many groups each environment has. */
  countUserGroups(): Promise<Record<Environment, number>>;
  /**
   * Deletes the group; null when it does not exist. Its team_id is never handed out again.
   * A group with children is refused (409 `conflict`) unless `cascade`: then its whole
   * subtree goes in the same transaction, with what `consequences` makes of the groups
   * deleted (children before their parents; the group alone without `cascade`).
   */
  deleteUserGroup(
    environment: Environment,
    providedId: string,
    consequences: GroupsDeletedConsequences,
    options?: { cascade?: boolean },
  ): Promise<UserGroupRecord | null>;
}

/** The storage re-sealing user group tokens needs (src/app/reseal-secrets.ts): a port, implemented in src/store for each database. */
export interface TokenResealStore {
  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]>;
  /**
   * Re-seals a group's unchanged token (server secret rotation): swaps the
   * ciphertext if the row still holds `expected`; false otherwise (e.g. the
   * token was rotated meanwhile, already under the new secret). Not audited:
   * nothing a caller can see changes.
   */
  replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean>;
}
