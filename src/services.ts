import { loadConfig, type Config, type WebhookConfig } from './config.js';
import { ApiKeyService } from './domain/api-key-service.js';
import type { AuditStore } from './domain/audit-store.js';
import { ConsoleSessionService } from './domain/console-session-service.js';
import { EventService } from './domain/event-service.js';
import { PositionSeal } from './domain/position-seal.js';
import { DataTransfer } from './domain/data-transfer.js';
import type { TokenResealStore } from './domain/secret-rotation.js';
import type { SettingsStore } from './domain/settings-store.js';
import type { SigningKeyStore } from './domain/signing-key-store.js';
import type { StoreHealth } from './domain/store-health.js';
import { EmbedSessionService } from './domain/embed-session-service.js';
import { createSigningKeyring, loadSigningKeyring, refreshSigningKeyring, SIGNING_KEY_POLL_MS, type SigningKeyring } from './domain/signing-keys.js';
import { UserGroupService } from './domain/user-group-service.js';
import { WebhookService } from './domain/webhook-service.js';
import type { WebhookDeliveryStore, WebhookSecretResealStore } from './domain/webhook-store.js';
import { TimedEmbedSessionStore, TimedSigningKeyStore } from './metrics/timed-embed-ports.js';
import { StoreTiming } from './metrics/store-timing.js';
import { TimedConsoleSessionStore } from './metrics/timed-console-ports.js';
import { TimedWebhookDeliveryStore, TimedWebhookStore } from './metrics/timed-webhook-ports.js';
import {
  TimedApiKeyStore,
  TimedAuditStore,
  TimedEventStore,
  TimedSettingsStore,
  TimedStoreHealth,
  TimedTokenResealStore,
  TimedTransferStore,
  TimedUserGroupStore,
} from './metrics/timed-ports.js';
import { loadServerSecret, SECRET_POLL_MS, type SecretKeyring } from './server-secret.js';
import { openStore, type StoreConfig } from './store/open-store.js';
import { DeliveryOutcomes } from './webhooks/delivery-outcomes.js';
import { TargetGuard } from './webhooks/target-guard.js';

/**
 * Everything the HTTP layer and the CLI call: one composition root for both.
 * Each consumer gets the domain service or the one port it needs, never the
 * store itself.
 */
export interface Services {
  userGroups: UserGroupService;
  apiKeys: ApiKeyService;
  dataTransfer: DataTransfer;
  /** Each environment's embed token signing keys: the JWKS, `ugs signing-keys`. */
  signingKeys: SigningKeyring;
  embedSessions: EmbedSessionService;
  /** The audit log, for `ugs audit`. */
  audit: AuditStore;
  /** The event outbox, for GET /api/events. */
  events: EventService;
  /** Operator console sessions (/console). */
  consoleSessions: ConsoleSessionService;
  /** Registering webhooks and reading their deliveries, for /api/webhooks and `ugs webhooks`. */
  webhooks: WebhookService;
  /** What the delivery worker needs (src/webhooks/webhook-worker.ts): the store's delivery side, the target guard, the settings. */
  webhookDelivery: { store: WebhookDeliveryStore; targets: TargetGuard; config: WebhookConfig; outcomes: DeliveryOutcomes };
  /** Every webhook's sealed secrets, for `ugs secret rotate`. */
  webhookReseal: WebhookSecretResealStore;
  /** Whether the store answers, for GET /readyz. */
  storeHealth: StoreHealth;
  /** The store's own settings: the server secret's bookkeeping (server-secret.ts, `ugs secret rotate`). */
  settings: SettingsStore;
  /** Every stored token's ciphertext, for `ugs secret rotate`. */
  tokenReseal: TokenResealStore;
  /** Every signing key's sealed private half, for `ugs secret rotate`. */
  signingKeyReseal: Pick<SigningKeyStore, 'listSigningKeys' | 'replaceSigningKeyCiphertext'>;
  /** How long each store call takes, for GET /metrics. */
  storeTiming: StoreTiming;
  cipher: SecretKeyring;
  appliedMigrations: string[];
  /** True when opening made the store (a fresh data dir or an empty database). */
  storeCreated: boolean;
  /** Stops following the server secret and closes the store; calling it again does nothing more. */
  close(): Promise<void>;
}

export interface ServicesConfig extends Pick<Config, 'dataDir' | 'secret' | 'postgres' | 'keyCacheTtlMs'>, Partial<Pick<Config, 'embed' | 'eventRetentionDays' | 'webhooks'>>, Pick<StoreConfig, 'createStore' | 'mustExist' | 'storeLog'> {
  previousSecret?: string;
  /** How often a process checks for a rotation by `ugs secret rotate`; SECRET_POLL_MS unless a test needs it faster. */
  secretPollMs?: number;
  /** A serving process records itself in the store, so `ugs secret rotate` knows which secrets it has. */
  serving?: boolean;
}

export async function openServices(config: ServicesConfig): Promise<Services> {
  const { store, appliedMigrations, created: storeCreated } = await openStore(config);
  // Every port timed for ugs_store_operation_duration_seconds (free until an app observes it).
  const storeTiming = new StoreTiming();
  const settings = new TimedSettingsStore(store.settings, storeTiming);
  try {
    const cipher = await loadServerSecret(settings, { dataDir: config.dataDir, secret: config.secret, previousSecret: config.previousSecret });
    await cipher.watch(settings, config.secretPollMs ?? SECRET_POLL_MS, config.serving ?? false);
    const userGroupStore = new TimedUserGroupStore(store.userGroups, storeTiming);
    // Tools and tests that open services without a full configuration get the settings' defaults.
    const embed = config.embed ?? loadConfig({}).embed;
    const signingKeyStore = new TimedSigningKeyStore(store.signingKeys, storeTiming);
    const signingKeys = createSigningKeyring({ store: signingKeyStore, settings, cipher, algorithm: embed.algorithm, jwksMaxAgeSeconds: embed.jwksMaxAgeSeconds });
    await loadSigningKeyring(signingKeys, { serving: config.serving ?? false });
    // A rotation waits at least 60 s (the least JWKS max-age) before its key signs: every process has reread the keys by then.
    const webhookConfig = config.webhooks ?? loadConfig({}).webhooks;
    const targets = new TargetGuard({ allowPrivateTargets: webhookConfig.allowPrivateTargets });
    const keyPoll = setInterval(() => void refreshSigningKeyring(signingKeys).catch(() => {}), SIGNING_KEY_POLL_MS);
    keyPoll.unref();
    // Made on first use (a page read), so tools that only open the store write nothing for it.
    const positions = new PositionSeal(settings);
    const apiKeys = new ApiKeyService({ store: new TimedApiKeyStore(store.apiKeys, storeTiming), cacheTtlMs: config.keyCacheTtlMs, revocations: store.apiKeys.keyRevocations() });
    return {
      userGroups: new UserGroupService({ store: userGroupStore, cipher }),
      signingKeys,
      embedSessions: new EmbedSessionService({
        sessions: new TimedEmbedSessionStore(store.embedSessions, storeTiming),
        groups: userGroupStore,
        signingKeys,
        settings: {
          Customer: { issuer: embed.issuer, audience: embed.audience },
          Testing: { issuer: embed.testingIssuer, audience: embed.testingAudience },
        },
        positions,
      }),
      apiKeys,
      consoleSessions: new ConsoleSessionService({ store: new TimedConsoleSessionStore(store.consoleSessions, storeTiming), apiKeys }),
      dataTransfer: new DataTransfer(new TimedTransferStore(store.transfer, storeTiming), cipher),
      audit: new TimedAuditStore(store.audit, storeTiming),
      events: new EventService({
        store: new TimedEventStore(store.events, storeTiming),
        retentionDays: config.eventRetentionDays ?? loadConfig({}).eventRetentionDays,
        positions,
      }),
      webhooks: new WebhookService({ store: new TimedWebhookStore(store.webhooks, storeTiming), cipher, targets, positions }),
      webhookDelivery: { store: new TimedWebhookDeliveryStore(store.webhookDeliveries, storeTiming), targets, config: webhookConfig, outcomes: new DeliveryOutcomes() },
      webhookReseal: store.webhooks,
      storeHealth: new TimedStoreHealth(store, storeTiming),
      settings,
      tokenReseal: new TimedTokenResealStore(store.tokenReseal, storeTiming),
      signingKeyReseal: signingKeyStore,
      storeTiming,
      cipher,
      appliedMigrations,
      storeCreated,
      close: async () => {
        clearInterval(keyPoll);
        await cipher.stop();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
