import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { ApiKeyStore } from '../../api-keys/api-key-store.js';
import type { AuditContext, AuditQuery, AuditRecord } from '../../audit/audit.js';
import type { AuditStore } from '../../audit/audit-store.js';
import type { Environment } from '../../kernel/environment.js';
import type { EventRecord } from '../../events/event.js';
import type { EventStore } from '../../events/event-store.js';
import type { KeyRevocationSignal } from '../../api-keys/key-revocation-signal.js';
import type { TokenResealStore } from '../../secrets/secret-rotation.js';
import type { SettingsStore } from '../../kernel/settings-store.js';
import type { StoreHealth } from '../../kernel/store-health.js';
import type { ImportBatch, TransferStore } from '../../transfer/transfer-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import type {
  NewUserGroup,
  TokenReplacement,
  UserGroupChanges,
  UserGroupLineage,
  UserGroupStore,
} from '../../user-groups/user-group-store.js';
import type { StoreTiming } from './store-timing.js';

/*
 * One decorator per port: the same port, each async method timed under its
 * own name (the `operation` label of ugs_store_operation_duration_seconds).
 * src/platform/services.ts wraps every port it hands out in one of these.
 */

export class TimedUserGroupStore implements UserGroupStore {
  constructor(
    private readonly inner: UserGroupStore,
    private readonly timing: StoreTiming,
  ) {}

  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null> {
    return this.timing.time('findUserGroup', () => this.inner.findUserGroup(environment, providedId));
  }
  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null> {
    return this.timing.time('findUserGroupByTokenHash', () => this.inner.findUserGroupByTokenHash(environment, tokenHash));
  }
  findUserGroupByTeamId(environment: Environment, teamId: number): Promise<UserGroupRecord | null> {
    return this.timing.time('findUserGroupByTeamId', () => this.inner.findUserGroupByTeamId(environment, teamId));
  }
  insertUserGroupIfAbsent(group: NewUserGroup, audit?: AuditContext): Promise<{ group: UserGroupRecord; created: boolean }> {
    return this.timing.time('insertUserGroupIfAbsent', () => this.inner.insertUserGroupIfAbsent(group, audit));
  }
  updateUserGroup(
    environment: Environment,
    providedId: string,
    changes: UserGroupChanges,
    audit?: AuditContext,
  ): Promise<UserGroupRecord | null> {
    return this.timing.time('updateUserGroup', () => this.inner.updateUserGroup(environment, providedId, changes, audit));
  }
  replaceToken(replacement: TokenReplacement, audit?: AuditContext): Promise<UserGroupRecord | null> {
    return this.timing.time('replaceToken', () => this.inner.replaceToken(replacement, audit));
  }
  listUserGroups(
    environment: Environment,
    page: { beforeTeamId: number; limit: number; prefix?: string; parentId?: string },
  ): Promise<UserGroupRecord[]> {
    return this.timing.time('listUserGroups', () => this.inner.listUserGroups(environment, page));
  }
  findUserGroupLineage(environment: Environment, providedId: string): Promise<UserGroupLineage | null> {
    return this.timing.time('findUserGroupLineage', () => this.inner.findUserGroupLineage(environment, providedId));
  }
  listDescendants(environment: Environment, providedId: string, page: { beforeTeamId: number; limit: number }): Promise<UserGroupRecord[]> {
    return this.timing.time('listDescendants', () => this.inner.listDescendants(environment, providedId, page));
  }
  countUserGroups(): Promise<Record<Environment, number>> {
    return this.timing.time('countUserGroups', () => this.inner.countUserGroups());
  }
  deleteUserGroup(
    environment: Environment,
    providedId: string,
    deletedAt: string,
    audit?: AuditContext,
    options?: { cascade?: boolean },
  ): Promise<UserGroupRecord | null> {
    return this.timing.time('deleteUserGroup', () => this.inner.deleteUserGroup(environment, providedId, deletedAt, audit, options));
  }
}

export class TimedApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly inner: ApiKeyStore,
    private readonly timing: StoreTiming,
  ) {}

  insertApiKey(key: ApiKeyRecord, audit?: AuditContext): Promise<void> {
    return this.timing.time('insertApiKey', () => this.inner.insertApiKey(key, audit));
  }
  findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null> {
    return this.timing.time('findApiKeyByHash', () => this.inner.findApiKeyByHash(keyHash));
  }
  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.timing.time('listApiKeys', () => this.inner.listApiKeys());
  }
  revokeApiKey(id: string, revokedAt: string, audit?: AuditContext): Promise<boolean> {
    return this.timing.time('revokeApiKey', () => this.inner.revokeApiKey(id, revokedAt, audit));
  }
  recordApiKeyUse(id: string, usedAt: string): Promise<void> {
    return this.timing.time('recordApiKeyUse', () => this.inner.recordApiKeyUse(id, usedAt));
  }
  /** Synchronous and asked on every cached request: not a store call, not timed. */
  keyRevocations(): KeyRevocationSignal {
    return this.inner.keyRevocations();
  }
}

export class TimedAuditStore implements AuditStore {
  constructor(
    private readonly inner: AuditStore,
    private readonly timing: StoreTiming,
  ) {}

  listAuditRecords(query: AuditQuery): Promise<AuditRecord[]> {
    return this.timing.time('listAuditRecords', () => this.inner.listAuditRecords(query));
  }
}

export class TimedEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly timing: StoreTiming,
  ) {}

  listRecentEvents(environment: Environment, limit: number, notBefore: string, userGroupId?: string): Promise<EventRecord[]> {
    return this.timing.time('listRecentEvents', () => this.inner.listRecentEvents(environment, limit, notBefore, userGroupId));
  }

  listEvents(environment: Environment, afterSequence: number, limit: number, notBefore: string): Promise<EventRecord[]> {
    return this.timing.time('listEvents', () => this.inner.listEvents(environment, afterSequence, limit, notBefore));
  }
}

export class TimedTransferStore implements TransferStore {
  constructor(
    private readonly inner: TransferStore,
    private readonly timing: StoreTiming,
  ) {}

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.timing.time('listApiKeys', () => this.inner.listApiKeys());
  }
  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return this.timing.time('listUserGroupsAfter', () => this.inner.listUserGroupsAfter(afterTeamId, limit));
  }
  isEmpty(): Promise<boolean> {
    return this.timing.time('isEmpty', () => this.inner.isEmpty());
  }
  importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void> {
    return this.timing.time('importAll', () => this.inner.importAll(batches, settings));
  }
  listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    return this.timing.time('listAuditRecordsAfter', () => this.inner.listAuditRecordsAfter(afterId, limit));
  }
}

export class TimedTokenResealStore implements TokenResealStore {
  constructor(
    private readonly inner: TokenResealStore,
    private readonly timing: StoreTiming,
  ) {}

  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return this.timing.time('listUserGroupsAfter', () => this.inner.listUserGroupsAfter(afterTeamId, limit));
  }
  replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean> {
    return this.timing.time('replaceTokenCiphertext', () => this.inner.replaceTokenCiphertext(teamId, expected, next));
  }
}

export class TimedSettingsStore implements SettingsStore {
  constructor(
    private readonly inner: SettingsStore,
    private readonly timing: StoreTiming,
  ) {}

  getSetting(name: string): Promise<string | null> {
    return this.timing.time('getSetting', () => this.inner.getSetting(name));
  }
  putSettingIfAbsent(name: string, value: string): Promise<string> {
    return this.timing.time('putSettingIfAbsent', () => this.inner.putSettingIfAbsent(name, value));
  }
  replaceSetting(name: string, expected: string, value: string): Promise<boolean> {
    return this.timing.time('replaceSetting', () => this.inner.replaceSetting(name, expected, value));
  }
  putSetting(name: string, value: string): Promise<void> {
    return this.timing.time('putSetting', () => this.inner.putSetting(name, value));
  }
  listSettings(prefix: string): Promise<{ name: string; value: string }[]> {
    return this.timing.time('listSettings', () => this.inner.listSettings(prefix));
  }
  deleteSetting(name: string): Promise<void> {
    return this.timing.time('deleteSetting', () => this.inner.deleteSetting(name));
  }
}

export class TimedStoreHealth implements StoreHealth {
  constructor(
    private readonly inner: StoreHealth,
    private readonly timing: StoreTiming,
  ) {}

  ping(): Promise<void> {
    return this.timing.time('ping', () => this.inner.ping());
  }

  clock(): Promise<Date | null> {
    return this.timing.time('clock', () => this.inner.clock());
  }
}
