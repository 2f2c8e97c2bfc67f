import type { UserGroupChanges, UserGroupStore } from './user-group-store.js';
import { may, readRefusal, type Principal } from '../kernel/principal.js';
import type { AuditContext, ChangeOrigin } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { conflict, forbidden, invalidRequest, notFound, ServiceError } from '../kernel/errors.js';
import { pageCursor } from '../kernel/page-cursor.js';
import { assertNfc } from '../kernel/nfc-ids.js';
import { hashSecret } from '../secrets/secret-format.js';
import { UnknownSecretError, type TokenCipher } from '../secrets/token-cipher.js';
import {
  LIMITS,
  type CustomerFields,
  type Mapping,
  type Properties,
  type UserGroup,
  type UserGroupDetail,
  type UserGroupRecord,
  type UserGroupSummary,
} from './user-group.js';
import { effectiveValues, renameTaken } from './user-group-hierarchy.js';
import { assertMappingResolves, resolveMapping, type DataSourceDirectory } from './mapping-resolution.js';
import { groupCreated, groupRenamed, groupsDeleted, groupUpdated, tokenRotated } from './user-group-consequences.js';
import { userGroupTokenFormat } from './user-group-token.js';

export interface GetOrCreateInput {
  userGroupId: string;
  name?: string;
  mapping?: Mapping;
  properties?: Properties;
  /** The parent's user_group_id; used only when the group is created. */
  parentUserGroupId?: string;
  /** The Customer API's fields; used only when the group is created. */
  customer?: CustomerFields;
}

export interface UpdateInput {
  userGroupId: string;
  name?: string;
  mapping?: Mapping;
  /** null clears the stored properties. */
  properties?: Properties | null;
  /** Moves the group under this parent; null detaches it; absent keeps it. */
  parentUserGroupId?: string | null;
  /** The Customer API's fields to replace (null clears emails, level or tags); absent keeps them. */
  customer?: CustomerFields;
  /** A new user_group_id (the Customer API's new_provided_id): the token stays, the group's sessions end. */
  newUserGroupId?: string;
}

export interface UserGroupServiceDeps {
  store: UserGroupStore;
  cipher: TokenCipher;
  /** Where mapping values are resolved; without it (tools, tests) none resolves. */
  dataSources?: DataSourceDirectory;
  /** UGS_MAPPING_UNRESOLVED=reject: a create or update whose mapping names no data source of the environment is a 400. */
  rejectUnresolvedMapping?: boolean;
  now?: () => Date;
}

const NO_DATA_SOURCES: DataSourceDirectory = { existing: async () => new Map() };

/** The three operations of the spec, scoped to the calling key's environment. */
export class UserGroupService {
  private readonly store: UserGroupStore;
  private readonly cipher: TokenCipher;
  private readonly now: () => Date;
  private readonly dataSources: DataSourceDirectory;
  private readonly rejectUnresolvedMapping: boolean;

  constructor(deps: UserGroupServiceDeps) {
    this.store = deps.store;
    this.cipher = deps.cipher;
    this.now = deps.now ?? (() => new Date());
    this.dataSources = deps.dataSources ?? NO_DATA_SOURCES;
    this.rejectUnresolvedMapping = deps.rejectUnresolvedMapping ?? false;
  }

  /** Returns the group, creating it when the key's environment has none with this id. */
  async getOrCreate(principal: Principal, input: GetOrCreateInput, origin?: ChangeOrigin): Promise<{ group: UserGroup; created: boolean }> {
    assertPropertiesSize(input.properties);
    assertMayRead(principal);
    // The hit path reads only: no token is generated for a group that exists.
    const existing = await this.store.findUserGroup(principal.environment, input.userGroupId);
    if (existing) return { group: this.reveal(existing), created: false };

    // Each message names the key's environment, where the group is missing: a group with this id in the other
    // environment is another group, and whether one exists there is never said.
    if (!may(principal, 'write')) {
      throw forbidden(
        `User group ${JSON.stringify(input.userGroupId)} does not exist in the ${principal.environment} environment (this key's), and this API key is read-only, so it cannot create it.`,
      );
    }
    assertNormalizedForCreation(input.userGroupId);
    if (input.name === undefined) {
      throw invalidRequest(
        `"name" is required to create a user group; no group with this "user_group_id" exists in the ${principal.environment} environment (this key's) yet.`,
      );
    }
    if (this.rejectUnresolvedMapping) await assertMappingResolves(this.dataSources, principal.environment, input.mapping);
    const token = userGroupTokenFormat.generate();
    const at = this.now().toISOString();
    const newGroup = {
      environment: principal.environment,
      providedId: input.userGroupId,
      name: input.name,
      mapping: input.mapping ?? null,
      properties: input.properties ?? null,
      ...(input.parentUserGroupId === undefined ? {} : { parentId: input.parentUserGroupId }),
      ...input.customer,
      tokenHash: hashSecret(token),
      tokenCiphertext: this.cipher.encrypt(token, principal.environment, input.userGroupId),
      createdAt: at,
      updatedAt: at,
    };
    const { group, created } = await this.store.insertUserGroupIfAbsent(
      newGroup,
      groupCreated(newGroup, auditOf(principal, setFields(input), origin)),
    );
    // Lost a race to a concurrent create: the winner's token is the stored one.
    return { group: created ? toUserGroup(group, token) : this.reveal(group), created };
  }

  /** Replaces the given fields of an existing group; the token stays. */
  async update(principal: Principal, input: UpdateInput, origin?: ChangeOrigin): Promise<UserGroup> {
    assertWritable(principal);
    assertPropertiesSize(input.properties);
    if (this.rejectUnresolvedMapping) await assertMappingResolves(this.dataSources, principal.environment, input.mapping);
    const changes: UserGroupChanges = {
      name: input.name,
      mapping: input.mapping,
      properties: input.properties,
      parentId: input.parentUserGroupId,
      ...input.customer,
      updatedAt: this.now().toISOString(),
    };
    const audit = auditOf(principal, setFields(input), origin);
    if (input.newUserGroupId !== undefined && input.newUserGroupId !== input.userGroupId) {
      return this.renamed(principal, input.userGroupId, input.newUserGroupId, changes, audit);
    }
    const updated = await this.store.updateUserGroup(
      principal.environment,
      input.userGroupId,
      changes,
      groupUpdated(principal.environment, input.userGroupId, changes, audit),
    );
    if (!updated) throw notFoundInEnvironment(principal, input.userGroupId);
    return this.reveal(updated);
  }

  /** An update that also gives the group a new id: its token re-sealed under the new id, its sessions ended. */
  private async renamed(principal: Principal, userGroupId: string, newUserGroupId: string, changes: UserGroupChanges, audit: AuditContext) {
    assertNormalizedForCreation(newUserGroupId);
    const current = await this.store.findUserGroup(principal.environment, userGroupId);
    if (!current) throw notFoundInEnvironment(principal, userGroupId);
    if (await this.store.findUserGroup(principal.environment, newUserGroupId)) throw renameTaken(principal.environment, newUserGroupId);
    const token = this.reveal(current).token;
    const rename = {
      providedId: newUserGroupId,
      tokenCiphertext: this.cipher.encrypt(token, principal.environment, newUserGroupId),
      expectedTokenHash: current.tokenHash,
    };
    const updated = await this.store.updateUserGroup(
      principal.environment,
      userGroupId,
      { ...changes, rename },
      groupRenamed(current, newUserGroupId, changes, audit),
    );
    // Gone, or its token rotated since it was read (the re-sealed token would be the old one): nothing was written.
    if (!updated)
      throw conflict(
        `User group ${JSON.stringify(userGroupId)} changed while it was renamed (deleted or its token rotated); read it again and retry.`,
      );
    return toUserGroup(updated, token);
  }

  /** Issues a new token for the group holding `currentToken`; the old one stops working at once. */
  async rotateToken(principal: Principal, currentToken: string, origin?: ChangeOrigin): Promise<UserGroup> {
    assertWritable(principal);
    // Built only when thrown: an Error captures a stack trace, about 4% of a rotation's CPU.
    const unknownToken = () => notFound('No user group holds this token: it is unknown, malformed or has already been rotated.');
    if (!userGroupTokenFormat.isWellFormed(currentToken)) throw unknownToken();
    const currentHash = hashSecret(currentToken);
    const group = await this.store.findUserGroupByTokenHash(principal.environment, currentHash);
    if (!group) throw unknownToken();

    const token = userGroupTokenFormat.generate();
    const replacement = {
      teamId: group.teamId,
      environment: group.environment,
      providedId: group.providedId,
      expectedTokenHash: currentHash,
      tokenHash: hashSecret(token),
      tokenCiphertext: this.cipher.encrypt(token, group.environment, group.providedId),
      updatedAt: this.now().toISOString(),
    };
    const rotated = await this.store.replaceToken(replacement, tokenRotated(replacement, auditOf(principal, ['token'], origin)));
    // A concurrent rotation with the same token won the swap: ours is superseded.
    if (!rotated) throw unknownToken();
    return toUserGroup(rotated, token);
  }

  /**
   * One page of the key's environment's groups, newest first. The cursor is
   * opaque to callers; it holds the last team_id shown, and team_ids only
   * grow, so pages stay stable while groups are created.
   */
  async list(
    principal: Principal,
    page: { limit: number; cursor?: string; prefix?: string; parent?: string },
  ): Promise<{ groups: UserGroupSummary[]; nextCursor: string | null }> {
    assertMayRead(principal);
    const beforeTeamId = page.cursor === undefined ? Number.MAX_SAFE_INTEGER : cursors.decode(page.cursor);
    if (page.parent !== undefined) await this.assertExists(principal, page.parent);
    const rows = await this.store.listUserGroups(principal.environment, {
      beforeTeamId,
      limit: page.limit + 1,
      prefix: page.prefix,
      parentId: page.parent,
    });
    return onePage(rows, page.limit);
  }

  /** One page of the group's whole subtree (the group excluded), newest first; 404 when the group does not exist. */
  async descendants(
    principal: Principal,
    userGroupId: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ groups: UserGroupSummary[]; nextCursor: string | null }> {
    assertMayRead(principal);
    const beforeTeamId = page.cursor === undefined ? Number.MAX_SAFE_INTEGER : cursors.decode(page.cursor);
    await this.assertExists(principal, userGroupId);
    return onePage(
      await this.store.listDescendants(principal.environment, userGroupId, { beforeTeamId, limit: page.limit + 1 }),
      page.limit,
    );
  }

  private async assertExists(principal: Principal, userGroupId: string): Promise<void> {
    if (!(await this.store.findUserGroup(principal.environment, userGroupId))) throw notFoundInEnvironment(principal, userGroupId);
  }

  /** The group as getOrCreate answers an existing one, token included; never creates (404 when absent). */
  async getWithToken(principal: Principal, userGroupId: string): Promise<UserGroup> {
    assertMayRead(principal);
    const record = await this.store.findUserGroup(principal.environment, userGroupId);
    if (!record) throw notFoundInEnvironment(principal, userGroupId);
    return this.reveal(record);
  }

  /** The group holding `token` in the key's environment (404 as a rotation says it when none does). */
  async findByToken(principal: Principal, token: string): Promise<UserGroupRecord> {
    assertMayRead(principal);
    const unknownToken = () => notFound('No user group holds this token: it is unknown, malformed or has already been rotated.');
    if (!userGroupTokenFormat.isWellFormed(token)) throw unknownToken();
    const group = await this.store.findUserGroupByTokenHash(principal.environment, hashSecret(token));
    if (!group) throw unknownToken();
    return group;
  }

  /** The group with its token and its ancestors (root first), from one store read; never creates. */
  async getWithLineage(principal: Principal, userGroupId: string): Promise<{ group: UserGroup; ancestors: UserGroupSummary[] }> {
    assertMayRead(principal);
    const lineage = await this.store.findUserGroupLineage(principal.environment, userGroupId);
    if (!lineage) throw notFoundInEnvironment(principal, userGroupId);
    return { group: this.reveal(lineage.group), ancestors: lineage.ancestors.map(summarize) };
  }

  /** A record as a caller may see it, its token decrypted (a 503 while the token's server secret is missing). */
  revealed(record: UserGroupRecord): UserGroup {
    return this.reveal(record);
  }

  /** The group without its token, with its ancestors and the values it inherits (one store read); never creates. */
  async get(principal: Principal, userGroupId: string): Promise<UserGroupDetail> {
    assertMayRead(principal);
    const lineage = await this.store.findUserGroupLineage(principal.environment, userGroupId);
    if (!lineage) throw notFoundInEnvironment(principal, userGroupId);
    const chain = [...lineage.ancestors, lineage.group];
    const effective = effectiveValues(chain);
    return {
      group: summarize(lineage.group),
      ancestors: lineage.ancestors.map((g) => g.providedId),
      effectiveProperties: effective.properties,
      effectiveMapping: effective.mapping,
      resolvedMapping: await resolveMapping(this.dataSources, chain, effective.mapping),
    };
  }

  /** Deletes the group; its token stops working at once and its team_id is never reused. */
  async delete(principal: Principal, userGroupId: string, origin?: ChangeOrigin, options: { cascade?: boolean } = {}): Promise<void> {
    assertWritable(principal);
    const deleted = await this.store.deleteUserGroup(
      principal.environment,
      userGroupId,
      groupsDeleted(this.now().toISOString(), auditOf(principal, [], origin)),
      options,
    );
    if (!deleted) throw notFoundInEnvironment(principal, userGroupId);
  }

  /** How many groups each environment has: the operator's figure (GET /metrics), not scoped to a key. */
  countByEnvironment(): Promise<Record<Environment, number>> {
    return this.store.countUserGroups();
  }

  private reveal(record: UserGroupRecord): UserGroup {
    try {
      return toUserGroup(record, this.cipher.decrypt(record.tokenCiphertext, record.environment, record.providedId));
    } catch (error) {
      // Not the caller's fault nor a bug: a rotation this server cannot follow. Retrying another replica may work.
      if (error instanceof UnknownSecretError) throw secretUnavailable();
      throw error;
    }
  }
}

function auditOf(principal: Principal, fields: string[], origin: ChangeOrigin | undefined): AuditContext {
  return { keyId: principal.keyId, fields, clientAddress: origin?.ip ?? null };
}

function secretUnavailable() {
  return new ServiceError(
    'unavailable',
    "This user group's token is sealed under a server secret this server does not have: a server secret rotation is unfinished, or this server runs without the new secret (see `ugs secret rotate`). Retry shortly.",
    { retryAfterSeconds: 5 },
  );
}

function notFoundInEnvironment(principal: Principal, userGroupId: string) {
  return notFound(`No user group with "user_group_id" ${JSON.stringify(userGroupId)} exists in the ${principal.environment} environment.`);
}

const cursors = pageCursor({ prefix: 'v1:', minimum: 1, parameter: 'cursor' });

/** A page of `limit` from `rows` (fetched one more than `limit`, to tell whether more follow). */
function onePage(rows: UserGroupRecord[], limit: number): { groups: UserGroupSummary[]; nextCursor: string | null } {
  const shown = rows.slice(0, limit);
  return { groups: shown.map(summarize), nextCursor: rows.length > limit ? cursors.encode(shown.at(-1)!.teamId) : null };
}

function summarize(record: UserGroupRecord): UserGroupSummary {
  return {
    teamId: record.teamId,
    environment: record.environment,
    providedId: record.providedId,
    name: record.name,
    mapping: record.mapping,
    properties: record.properties,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(record.parentId ? { parentTeamId: record.parentTeamId, parentId: record.parentId } : {}),
    ...customerFieldsOf(record),
  };
}

/** The Customer API's fields the record has (each absent while unset). */
export function customerFieldsOf(record: CustomerFields): CustomerFields {
  const fields: CustomerFields = {};
  if (record.emails !== undefined && record.emails !== null) fields.emails = record.emails;
  if (record.isDemoGroup) fields.isDemoGroup = true;
  if (record.hierarchyLevel !== undefined && record.hierarchyLevel !== null) fields.hierarchyLevel = record.hierarchyLevel;
  if (record.groupTags !== undefined && record.groupTags !== null) fields.groupTags = record.groupTags;
  return fields;
}

function toUserGroup(record: UserGroupRecord, token: string): UserGroup {
  return { ...summarize(record), token };
}

/** Names (never values) of the fields a create or update sets, for the audit record: the Customer API's by their wire names. */
function setFields(input: { name?: unknown; mapping?: unknown; properties?: unknown; customer?: CustomerFields }): string[] {
  const own = (['name', 'mapping', 'properties'] as const).filter((field) => input[field] !== undefined);
  const customer = input.customer ?? {};
  return [...own, ...CUSTOMER_FIELD_NAMES.filter(([field]) => customer[field] !== undefined).map(([, wire]) => wire)];
}

const CUSTOMER_FIELD_NAMES = [
  ['emails', 'emails'],
  ['isDemoGroup', 'is_demo_group'],
  ['hierarchyLevel', 'hierarchy_level'],
  ['groupTags', 'group_tags'],
] as const;

function assertWritable(principal: Principal): void {
  assertMayRead(principal);
  if (!may(principal, 'write')) throw forbidden('This API key is read-only; use a read-write key to change user groups.');
}

/** Embed keys only mint embed sessions: a leaked one must not reveal groups' tokens or properties. */
/**
 * New ids must be in Unicode NFC: "café" with a precomposed é and with e + U+0301 look the same and
 * would be two groups. Groups made before this rule keep working; only creation checks.
 */
function assertNormalizedForCreation(userGroupId: string): void {
  assertNfc(userGroupId, 'user_group_id', 'new groups', 'groups');
}

function assertMayRead(principal: Principal): void {
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'user groups'));
}

/** The size cap JSON schema cannot express: properties serialize to at most 64 KiB. */
function assertPropertiesSize(properties: Properties | null | undefined): void {
  if (properties === null || properties === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(properties));
  if (bytes > LIMITS.propertiesMaxBytes) {
    throw invalidRequest(`"properties" is ${bytes} bytes when serialized; the limit is ${LIMITS.propertiesMaxBytes} bytes (64 KiB).`);
  }
}
