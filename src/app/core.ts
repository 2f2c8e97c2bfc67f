import { randomUUID } from 'node:crypto';
import { defaultConfig, type Config } from '../platform/config.js';
import { ApiKeyService } from '../api-keys/api-key-service.js';
import type { AuditStore } from '../audit/audit-store.js';
import { ConsoleSessionService } from '../console/console-session-service.js';
import { EventService } from '../events/event-service.js';
import { PositionSeal } from '../kernel/position-seal.js';
import { DataTransfer } from '../transfer/data-transfer.js';
import type { TokenResealStore } from '../user-groups/user-group-store.js';
import type { SettingsStore } from '../kernel/settings-store.js';
import type { SigningKeyStore } from '../signing-keys/signing-key-store.js';
import type { StoreHealth } from '../kernel/store-health.js';
import { StoreClock } from '../kernel/store-clock.js';
import { EmbedSessionService } from '../embed-sessions/embed-session-service.js';
import { SessionActivity } from '../embed-sessions/session-activity.js';
import { SessionIds } from '../embed-sessions/session-id.js';
import { ViewerService } from '../viewers/viewer-service.js';
import { UsageService } from '../usage/usage-service.js';
import { createSigningKeyring, loadSigningKeyring, type SigningKeyring } from '../signing-keys/signing-keys.js';
import { UserGroupService } from '../user-groups/user-group-service.js';
import { WebhookService } from '../webhooks/webhook-service.js';
import { DataSourceService } from '../data-sources/data-source-service.js';
import type { DataSourceSecretResealStore } from '../data-sources/data-source-store.js';
import { MetabaseService } from '../metabase/metabase-service.js';
import { CustomerService } from '../customers/customer-service.js';
import { HierarchyLevels } from '../customers/hierarchy-levels.js';
import { CustomerEmbedTokens } from '../customers/customer-embed-token.js';
import { GroupTagService } from '../group-tags/group-tag-service.js';
import type { MetabaseSecretResealStore } from '../metabase/metabase-store.js';
import { connectionChecker } from './data-source-checker.js';
import type { WebhookSecretResealStore } from '../webhooks/webhook-store.js';
import { StoreTiming } from './metrics/store-timing.js';
import { timedPort } from './metrics/timed-port.js';
import { loadServerSecret, type SecretKeyring } from './server-secret.js';
import { openStore, type StoreConfig } from '../store/open-store.js';
import { DeliveryOutcomes } from '../webhooks/delivery/delivery-outcomes.js';
import { TargetGuard } from '../webhooks/delivery/target-guard.js';
import type { WebhookDeliveryPorts } from '../webhooks/delivery/webhook-worker.js';

/**
 * The composition root's first phase: the store and the domain services over
 * it, for the CLI and for serving alike. Opening it starts nothing in the
 * background (no poller, no timer, no listener), so a one-shot command ends
 * when its work does; src/app/serving.ts adds what only a serving process runs.
 * Each consumer gets the domain service or the one port it needs, never the
 * store itself.
 */
export interface Core {
  userGroups: UserGroupService;
  apiKeys: ApiKeyService;
  /** Each environment's embed token signing keys: the JWKS, `ugs signing-keys`. */
  signingKeys: SigningKeyring;
  embedSessions: EmbedSessionService;
  /** A group's viewers and ending a viewer's sessions (/api/viewers, a group's viewers). */
  viewers: ViewerService;
  /** Sessions minted and renewed and distinct viewers per group and hour or day (/api/usage, `ugs usage`). */
  usage: UsageService;
  /** The mints and renewals this process counts before a flush writes them; observed for GET /metrics. */
  sessionActivity: SessionActivity;
  /** The event outbox, for GET /api/events. */
  events: EventService;
  /** Registering webhooks and reading their deliveries, for /api/webhooks and `ugs webhooks`. */
  webhooks: WebhookService;
  /** Data sources (/api/data_sources, `ugs data-sources`): what mapping values name and how to reach each. */
  dataSources: DataSourceService;
  /** Metabase static embedding (/api/integrations/metabase): its settings and the tokens minted from groups. */
  metabase: MetabaseService;
  /** The Customer API (/api/create_customer/, …) over the user groups, and its group tags. */
  customers: CustomerService;
  customerEmbedTokens: CustomerEmbedTokens;
  groupTags: GroupTagService;
  /** The ports this process listens on: serving sets them once listening, and a data source check refuses them. */
  listeningPorts: number[];
  /** Operator console sessions (/console). */
  consoleSessions: ConsoleSessionService;
  /** The audit log, for `ugs audit` and the console's activity page. */
  audit: AuditStore;
  /** `ugs export` and `ugs import`. */
  dataTransfer: DataTransfer;
  /** The server secret: seals tokens, signing keys and webhook secrets. */
  cipher: SecretKeyring;
  /** What the delivery worker needs (src/webhooks/delivery/webhook-worker.ts). */
  webhookDelivery: WebhookDeliveryPorts;
  /** What `ugs secret rotate` rereads and reseals, and where serving processes follow a rotation. */
  secretRotation: SecretRotationPorts;
  storeStatus: StoreStatus;
  /** Closes the store; calling it again does nothing more. */
  close(): Promise<void>;
}

export interface SecretRotationPorts {
  /** The store's own settings: the server secret's bookkeeping (server-secret.ts, secret-holders.ts). */
  settings: SettingsStore;
  /** Every stored token's ciphertext. */
  tokenReseal: TokenResealStore;
  /** Every signing key's sealed private half. */
  signingKeyReseal: Pick<SigningKeyStore, 'listSigningKeys' | 'replaceSigningKeyCiphertext'>;
  /** Every webhook's sealed secrets. */
  webhookReseal: WebhookSecretResealStore;
  /** Every data source's sealed password. */
  dataSourceReseal: DataSourceSecretResealStore;
  metabaseReseal: MetabaseSecretResealStore;
}

export interface StoreStatus {
  /** Whether the store answers, for GET /readyz. */
  health: StoreHealth;
  /** This process's clock against the store's: minting and renewing refuse, and /readyz fails, while it is too far off. */
  clock: StoreClock;
  /** How long each store call takes, for GET /metrics. */
  timing: StoreTiming;
  appliedMigrations: string[];
  /** True when opening made the store (a fresh data dir or an empty database). */
  created: boolean;
  /** Starts following the store's state in the background (SQLite: its file deleted or replaced) until close: serving processes only. */
  monitor(): void;
}

export interface CoreConfig
  extends
    Pick<Config, 'dataDir' | 'secret' | 'postgres' | 'keyCacheTtlMs'>,
    Partial<
      Pick<
        Config,
        | 'previousSecret'
        | 'embed'
        | 'eventRetentionDays'
        | 'usageRetentionDays'
        | 'webhooks'
        | 'rejectUnresolvedMapping'
        | 'hierarchyLevels'
      >
    >,
    Pick<StoreConfig, 'createStore' | 'mustExist' | 'storeLog'> {
  /** This process's clock (epoch milliseconds); a test skews it to play a replica on a machine whose clock is off. */
  now?: () => number;
}

export async function openCore(config: CoreConfig): Promise<Core> {
  const { store, appliedMigrations, created } = await openStore(config);
  // Every port timed for ugs_store_operation_duration_seconds (free until an app observes it).
  const timing = new StoreTiming();
  const settings = timedPort(store.settings, timing);
  try {
    const cipher = await loadServerSecret(settings, {
      dataDir: config.dataDir,
      secret: config.secret,
      previousSecret: config.previousSecret,
    });
    const userGroupStore = timedPort(store.userGroups, timing);
    // Tools and tests that open the core without a full configuration get the settings' defaults.
    const embed = config.embed ?? defaultConfig().embed;
    const webhookConfig = config.webhooks ?? defaultConfig().webhooks;
    const signingKeyStore = timedPort(store.signingKeys, timing);
    const epochMs = config.now ?? Date.now;
    const signingKeys = createSigningKeyring({
      store: signingKeyStore,
      settings,
      cipher,
      algorithm: embed.algorithm,
      jwksMaxAgeSeconds: embed.jwksMaxAgeSeconds,
      // The process's clock, as minting reads it: a key takes over when this process's time says so.
      now: () => new Date(epochMs()),
    });
    await loadSigningKeyring(signingKeys);
    const targets = new TargetGuard({ allowPrivateTargets: webhookConfig.allowPrivateTargets });
    // Made on first use (a page read), so tools that only open the store write nothing for it.
    const positions = new PositionSeal(settings);
    const embedSessionStore = timedPort(store.embedSessions, timing);
    // The store object itself answers the health port: only ping and clock are reachable through this type.
    const health = timedPort<StoreHealth>(store, timing);
    const now = () => new Date(epochMs());
    const clock = new StoreClock(health, { maxOffsetMs: embed.clockOffsetMaxMs, now: epochMs });
    const sessionActivity = new SessionActivity(embedSessionStore, randomUUID, {
      retentionDays: config.usageRetentionDays ?? defaultConfig().usageRetentionDays,
    });
    const embedSessions = new EmbedSessionService({
      sessions: embedSessionStore,
      groups: userGroupStore,
      signingKeys,
      settings: {
        Customer: { issuer: embed.issuer, audience: embed.audience },
        Testing: { issuer: embed.testingIssuer, audience: embed.testingAudience },
      },
      positions,
      sessionIds: new SessionIds(settings),
      activity: sessionActivity,
      clock,
      now,
    });
    const apiKeys = new ApiKeyService({
      store: timedPort(store.apiKeys, timing, { untimed: ['keyRevocations'] }),
      cacheTtlMs: config.keyCacheTtlMs,
      revocations: store.apiKeys.keyRevocations(),
    });
    const listeningPorts: number[] = [];
    const dataSources = new DataSourceService({
      store: timedPort(store.dataSources, timing),
      cipher,
      checker: connectionChecker({ ownPorts: () => listeningPorts }),
      now,
    });
    const userGroups = new UserGroupService({
      store: userGroupStore,
      cipher,
      dataSources,
      rejectUnresolvedMapping: config.rejectUnresolvedMapping ?? false,
    });
    const groupTags = new GroupTagService({ store: timedPort(store.groupTags, timing), now });
    return {
      userGroups,
      groupTags,
      customers: new CustomerService({
        userGroups,
        store: timedPort(store.customers, timing),
        levels: new HierarchyLevels(config.hierarchyLevels ?? defaultConfig().hierarchyLevels),
      }),
      customerEmbedTokens: new CustomerEmbedTokens(embedSessions),
      dataSources,
      metabase: new MetabaseService({
        store: timedPort(store.metabase, timing),
        cipher,
        sessions: embedSessions,
        activity: sessionActivity,
        now,
      }),
      listeningPorts,
      apiKeys,
      signingKeys,
      embedSessions,
      viewers: new ViewerService({ store: embedSessionStore, groups: userGroupStore, clock, now }),
      usage: new UsageService({ store: timedPort(store.usage, timing), groups: userGroupStore }),
      sessionActivity,
      events: new EventService({
        store: timedPort(store.events, timing),
        retentionDays: config.eventRetentionDays ?? defaultConfig().eventRetentionDays,
        positions,
      }),
      webhooks: new WebhookService({ store: timedPort(store.webhooks, timing), cipher, targets, positions }),
      consoleSessions: new ConsoleSessionService({ store: timedPort(store.consoleSessions, timing), apiKeys }),
      audit: timedPort(store.audit, timing),
      dataTransfer: new DataTransfer(timedPort(store.transfer, timing), cipher),
      cipher,
      webhookDelivery: {
        store: timedPort(store.webhookDeliveries, timing),
        targets,
        config: webhookConfig,
        outcomes: new DeliveryOutcomes(),
      },
      secretRotation: {
        settings,
        tokenReseal: timedPort(store.tokenReseal, timing),
        signingKeyReseal: signingKeyStore,
        webhookReseal: store.webhooks,
        dataSourceReseal: store.dataSources,
        metabaseReseal: store.metabase,
      },
      storeStatus: { health, clock, timing, appliedMigrations, created, monitor: () => store.monitor() },
      // Serving may have started the secret watch on this core's cipher: closing the core ends it too (it is
      // idempotent), so a process that closes its core without serving's close() leaves no holder row behind.
      close: async () => {
        await cipher.stop();
        // What was minted since the last flush (a CLI's mints, or a serving process's last seconds) is counted before the store closes.
        await embedSessions.flushActivity().catch(() => {});
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
