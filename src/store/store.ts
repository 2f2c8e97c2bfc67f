import type { ApiKeyStore } from '../domain/api-key-store.js';
import type { AuditStore } from '../domain/audit-store.js';
import type { ConsoleSessionStore } from '../domain/console-session-store.js';
import type { EventStore } from '../domain/event-store.js';
import type { EmbedSessionStore } from '../domain/embed-session-store.js';
import type { SigningKeyStore } from '../domain/signing-key-store.js';
import type { TokenResealStore } from '../domain/secret-rotation.js';
import type { SettingsStore } from '../domain/settings-store.js';
import type { StoreHealth } from '../domain/store-health.js';
import type { TransferStore } from '../domain/transfer-store.js';
import type { UserGroupStore } from '../domain/user-group-store.js';
import type { WebhookDeliveryStore, WebhookSecretResealStore, WebhookStore } from '../domain/webhook-store.js';

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
 * One open database, as the ports the domain declares beside its concepts:
 * one object per port, so the composition root (src/services.ts) hands each consumer only the one it
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
  readonly signingKeys: SigningKeyStore;
  readonly consoleSessions: ConsoleSessionStore;
  readonly webhooks: WebhookStore & WebhookSecretResealStore;
  readonly webhookDeliveries: WebhookDeliveryStore;
  /** Starts following the store's own state in the background, for a serving process; opening starts nothing. */
  monitor(): void;
  close(): Promise<void>;
}
