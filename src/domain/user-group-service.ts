import type { Store } from '../store/store.js';
import type { Principal } from './api-key.js';
import { forbidden, invalidRequest, notFound } from './errors.js';
import { hashSecret } from './secret-format.js';
import type { TokenCipher } from './token-cipher.js';
import { LIMITS, type Mapping, type Properties, type UserGroup, type UserGroupRecord } from './user-group.js';
import { userGroupTokenFormat } from './user-group-token.js';

export interface GetOrCreateInput {
  userGroupId: string;
  name?: string;
  mapping?: Mapping;
  properties?: Properties;
}

export interface UpdateInput {
  userGroupId: string;
  name?: string;
  mapping?: Mapping;
  /** null clears the stored properties. */
  properties?: Properties | null;
}

export interface UserGroupServiceDeps {
  store: Store;
  cipher: TokenCipher;
  now?: () => Date;
}

/** The three operations of the spec, scoped to the calling key's environment. */
export class UserGroupService {
  private readonly store: Store;
  private readonly cipher: TokenCipher;
  private readonly now: () => Date;

  constructor(deps: UserGroupServiceDeps) {
    this.store = deps.store;
    this.cipher = deps.cipher;
    this.now = deps.now ?? (() => new Date());
  }

  /** Returns the group, creating it when the key's environment has none with this id. */
  async getOrCreate(principal: Principal, input: GetOrCreateInput): Promise<{ group: UserGroup; created: boolean }> {
    assertPropertiesSize(input.properties);
    // The hit path reads only: no token is generated for a group that exists.
    const existing = await this.store.findUserGroup(principal.environment, input.userGroupId);
    if (existing) return { group: this.reveal(existing), created: false };

    if (principal.access === 'read-only') {
      throw forbidden(`User group "${input.userGroupId}" does not exist and this API key is read-only, so it cannot create it.`);
    }
    if (input.name === undefined) {
      throw invalidRequest('"name" is required to create a user group; no group with this "user_group_id" exists yet.');
    }
    const token = userGroupTokenFormat.generate();
    const at = this.now().toISOString();
    const { group, created } = await this.store.insertUserGroupIfAbsent({
      environment: principal.environment,
      providedId: input.userGroupId,
      name: input.name,
      mapping: input.mapping ?? null,
      properties: input.properties ?? null,
      tokenHash: hashSecret(token),
      tokenCiphertext: this.cipher.encrypt(token, principal.environment, input.userGroupId),
      createdAt: at,
      updatedAt: at,
    }, { keyId: principal.keyId, fields: setFields(input) });
    return { group: this.reveal(group), created };
  }

  /** Replaces the given fields of an existing group; the token stays. */
  async update(principal: Principal, input: UpdateInput): Promise<UserGroup> {
    assertWritable(principal);
    assertPropertiesSize(input.properties);
    const updated = await this.store.updateUserGroup(
      principal.environment,
      input.userGroupId,
      { name: input.name, mapping: input.mapping, properties: input.properties, updatedAt: this.now().toISOString() },
      { keyId: principal.keyId, fields: setFields(input) },
    );
    if (!updated) throw notFound(`No user group with "user_group_id" "${input.userGroupId}" exists in the ${principal.environment} environment.`);
    return this.reveal(updated);
  }

  /** Issues a new token for the group holding `currentToken`; the old one stops working at once. */
  async rotateToken(principal: Principal, currentToken: string): Promise<UserGroup> {
    assertWritable(principal);
    const unknownToken = notFound('No user group holds this token: it is unknown, malformed or has already been rotated.');
    if (!userGroupTokenFormat.isWellFormed(currentToken)) throw unknownToken;
    const currentHash = hashSecret(currentToken);
    const group = await this.store.findUserGroupByTokenHash(principal.environment, currentHash);
    if (!group) throw unknownToken;

    const token = userGroupTokenFormat.generate();
    const rotated = await this.store.replaceToken({
      teamId: group.teamId,
      expectedTokenHash: currentHash,
      tokenHash: hashSecret(token),
      tokenCiphertext: this.cipher.encrypt(token, group.environment, group.providedId),
      updatedAt: this.now().toISOString(),
    }, { keyId: principal.keyId, fields: ['token'] });
    // A concurrent rotation with the same token won the swap: ours is superseded.
    if (!rotated) throw unknownToken;
    return { ...toUserGroup(rotated, token) };
  }

  private reveal(record: UserGroupRecord): UserGroup {
    return toUserGroup(record, this.cipher.decrypt(record.tokenCiphertext, record.environment, record.providedId));
  }
}

function toUserGroup(record: UserGroupRecord, token: string): UserGroup {
  return {
    teamId: record.teamId,
    environment: record.environment,
    providedId: record.providedId,
    name: record.name,
    mapping: record.mapping,
    properties: record.properties,
    token,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** Names (never values) of the fields a create or update sets, for the audit record. */
function setFields(input: { name?: unknown; mapping?: unknown; properties?: unknown }): string[] {
  return (['name', 'mapping', 'properties'] as const).filter((field) => input[field] !== undefined);
}

function assertWritable(principal: Principal): void {
  if (principal.access === 'read-only') throw forbidden('This API key is read-only; use a read-write key to change user groups.');
}

/** The size cap JSON schema cannot express: properties serialize to at most 64 KiB. */
function assertPropertiesSize(properties: Properties | null | undefined): void {
  if (properties === null || properties === undefined) return;
  const bytes = Buffer.byteLength(JSON.stringify(properties));
  if (bytes > LIMITS.propertiesMaxBytes) {
    throw invalidRequest(`"properties" is ${bytes} bytes when serialized; the limit is ${LIMITS.propertiesMaxBytes} bytes (64 KiB).`);
  }
}
