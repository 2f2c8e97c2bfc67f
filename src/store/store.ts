import type { ApiKeyStore } from '../api-keys/api-key-store.js';
import type { AuditStore } from '../audit/audit-store.js';
import type { ConsoleSessionStore } from '../console/console-session-store.js';
import type { EventStore } from '../events/event-store.js';
import type { EmbedSessionStore } from '../embed-sessions/embed-session-store.js';
import type { SigningKeyStore } from '../signing-keys/signing-key-store.js';
import type { TokenResealStore } from '../user-groups/user-group-store.js';
import type { SettingsStore } from '../kernel/settings-store.js';
import type { StoreHealth } from '../kernel/store-health.js';
import type { TransferStore } from '../transfer/transfer-store.js';
import type { UsageStore } from '../usage/usage-store.js';
import type { UserGroupStore } from '../user-groups/user-group-store.js';
import type { DataSourceSecretResealStore, DataSourceStore } from '../data-sources/data-source-store.js';
import type { MetabaseSecretResealStore, MetabaseStore } from '../metabase/metabase-store.js';
import type { GroupTagStore } from '../group-tags/group-tag-store.js';
import type { CustomerStore } from '../customers/customer-store.js';
import type { WebhookDeliveryStore, WebhookSecretResealStore, WebhookStore } from '../webhooks/webhook-store.js';

export type { NewUserGroup, TokenReplacement, UserGroupChanges } from '../user-groups/user-group-store.js';
export type { ImportBatch } from '../transfer/transfer-store.js';

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
 * One open database, as the ports the domain declares beside its concepts:
 * one object per port, so the composition root (src/app/core.ts) hands each consumer only the one it
 * needs. One implementation per database (`sqlite/`, `postgres/`, with the
 * same file per port in each), all passing the conformance suite in
 * test/store/store-conformance.ts. Every SQL dialect detail stays behind
 * these ports. Methods are async so a networked database fits the same shape.
 *
 * Every write that changes something appends one audit record in the same
 * transaction (`audit` says who and which fields); a write that changes
 * nothing (a lost race, an unknown id, a second revocation) appends none.
 * The same holds for events (the outbox, `events`): one per audit record,
 * written beside it.
 */
export interface Store extends StoreHealth {
  readonly userGroups: UserGroupStore;
  readonly apiKeys: ApiKeyStore;
  readonly audit: AuditStore;
  readonly events: EventStore;
  readonly transfer: TransferStore;
  readonly tokenReseal: TokenResealStore;
  readonly settings: SettingsStore;
  readonly embedSessions: EmbedSessionStore;
  readonly usage: UsageStore;
  readonly signingKeys: SigningKeyStore;
  readonly consoleSessions: ConsoleSessionStore;
  readonly webhooks: WebhookStore & WebhookSecretResealStore;
  readonly webhookDeliveries: WebhookDeliveryStore;
  readonly dataSources: DataSourceStore & DataSourceSecretResealStore;
  readonly metabase: MetabaseStore & MetabaseSecretResealStore;
  readonly groupTags: GroupTagStore;
  readonly customers: CustomerStore;
  /** Starts following the store's own state in the background, for a serving process; opening starts nothing. */
  monitor(): void;
  close(): Promise<void>;
}
