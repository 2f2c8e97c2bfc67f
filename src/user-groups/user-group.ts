import type { Environment } from '../kernel/environment.js';
import type { ResolvedSchema } from './mapping-resolution.js';

/** Mapping from schema id to a data source name or id. */
export type Mapping = Record<string, string | number>;
export type Properties = Record<string, unknown>;

/** A user group as the store keeps it. The token exists only as a hash and a ciphertext. */
export interface UserGroupRecord {
  teamId: number;
  environment: Environment;
  providedId: string;
  name: string;
  mapping: Mapping | null;
  properties: Properties | null;
  tokenHash: Buffer;
  tokenCiphertext: Buffer;
  createdAt: string;
  updatedAt: string;
  /** The parent's team_id; absent or null for a root. */
  parentTeamId?: number | null;
  /** The parent's provided id, as the wire shows it; absent or null for a root. */
  parentId?: string | null;
  /**
   * What the Customer API (src/customers) keeps beside this service's own fields: each absent while unset, so
   * a group made through /api/user reads as it did before that API existed.
   */
  emails?: string[] | null;
  isDemoGroup?: boolean;
  /** The name of its hierarchy level (src/customers/hierarchy-levels.ts); absent for a group that was given none. */
  hierarchyLevel?: string | null;
  /** The names of the group tags it carries, in the order given (src/group-tags). */
  groupTags?: string[] | null;
}

/** The Customer API's fields of a group, as a create or an update sets them. */
export type CustomerFields = Pick<UserGroupRecord, 'emails' | 'isDemoGroup' | 'hierarchyLevel' | 'groupTags'>;

/** What listing and reading show of a group: everything but its token. */
export type UserGroupSummary = Omit<UserGroupRecord, 'tokenHash' | 'tokenCiphertext'>;

/** One group as reading it shows: its ancestors (provided ids, root first) and the values it inherits. */
export interface UserGroupDetail {
  group: UserGroupSummary;
  ancestors: string[];
  effectiveProperties: Properties | null;
  effectiveMapping: Mapping | null;
  /** Each schema of the effective mapping with the group that sets it and the data source it names (null: none of the environment). */
  resolvedMapping: ResolvedSchema[];
}

/** A user group with its token decrypted, ready to be returned to its owner. */
export type UserGroup = UserGroupSummary & { token: string };

/** Limits the wire schema enforces; kept here so the domain and docs agree on them. */
export const LIMITS = {
  idMaxLength: 255,
  nameMaxLength: 255,
  mappingMaxEntries: 100,
  mappingKeyMaxLength: 255,
  mappingValueMaxLength: 255,
  propertiesMaxBytes: 64 * 1024,
} as const;
