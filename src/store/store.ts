import type { AuditQuery, AuditRecord } from '../domain/audit.js';
import type { ApiKeyStore } from '../domain/api-key-store.js';
import type { EmbedSessionStore } from '../domain/embed-session-store.js';
import type { SigningKeyStore } from '../domain/signing-key-store.js';
import type { TokenResealStore } from '../domain/secret-rotation.js';
import type { TransferStore } from '../domain/transfer-store.js';
import type { UserGroupStore } from '../domain/user-group-store.js';

export type { NewUserGroup, TokenReplacement, UserGroupChanges } from '../domain/user-group-store.js';
export type { ImportBatch } from '../domain/transfer-store.js';

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

/**
 * Everything the service persists: every port the domain declares beside its
 * concept, plus what only the stores' own users need (health, settings, the
 * audit log). One implementation per database (`sqlite/`, `postgres/`), all
 * passing the conformance suite in
 * test/store/store-conformance.ts. Every SQL dialect detail stays behind this
 * interface. Methods are async so a networked database fits the same shape.
 *
 * Every write that changes something appends one audit record in the same
 * transaction (`audit` says who and which fields); a write that changes
 * nothing (a lost race, an unknown id, a second revocation) appends none.
 */
export interface Store extends UserGroupStore, ApiKeyStore, TransferStore, TokenResealStore, EmbedSessionStore, SigningKeyStore {
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

  /** Audit records, oldest first, filtered by group and time. */
  listAuditRecords(query: AuditQuery): Promise<AuditRecord[]>;
}
