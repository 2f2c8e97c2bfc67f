import { loadConfig, type Config } from './config.js';
import { ApiKeyService } from './domain/api-key-service.js';
import { DataTransfer } from './domain/data-transfer.js';
import { UserGroupService } from './domain/user-group-service.js';
import { EmbedSessionService } from './domain/embed-session-service.js';
import { SIGNING_KEY_POLL_MS, SigningKeys } from './domain/signing-keys.js';
import { timedStore } from './metrics/timed-store.js';
import { loadServerSecret, SECRET_POLL_MS, type SecretKeyring } from './server-secret.js';
import { openStore, type StoreConfig } from './store/open-store.js';
import type { Store } from './store/store.js';

/** Everything the HTTP layer and the CLI call: one composition root for both. */
export interface Services {
  store: Store;
  userGroups: UserGroupService;
  apiKeys: ApiKeyService;
  dataTransfer: DataTransfer;
  signingKeys: SigningKeys;
  embedSessions: EmbedSessionService;
  cipher: SecretKeyring;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export interface ServicesConfig extends Pick<Config, 'dataDir' | 'secret' | 'postgres' | 'keyCacheTtlMs'>, Partial<Pick<Config, 'embed'>>, Pick<StoreConfig, 'createStore' | 'storeLog'> {
  previousSecret?: string;
  /** How often a process checks for a rotation by `ugs secret rotate`; SECRET_POLL_MS unless a test needs it faster. */
  secretPollMs?: number;
  /** A serving process records itself in the store, so `ugs secret rotate` knows which secrets it has. */
  serving?: boolean;
}

export async function openServices(config: ServicesConfig): Promise<Services> {
  const opened = await openStore(config);
  // Every call timed for ugs_store_operation_duration_seconds (free until an app observes it).
  const store = timedStore(opened.store);
  const { appliedMigrations } = opened;
  try {
    const cipher = await loadServerSecret(store, { dataDir: config.dataDir, secret: config.secret, previousSecret: config.previousSecret });
    await cipher.watch(store, config.secretPollMs ?? SECRET_POLL_MS, config.serving ?? false);
    // Tools and tests that open services without a full configuration get the settings' defaults.
    const embed = config.embed ?? loadConfig({}).embed;
    const signingKeys = new SigningKeys({ store, cipher, algorithm: embed.algorithm, jwksMaxAgeSeconds: embed.jwksMaxAgeSeconds });
    await signingKeys.load({ serving: config.serving ?? false });
    // A rotation waits at least 60 s (the least JWKS max-age) before its key signs: every process has reread the keys by then.
    const keyPoll = setInterval(() => void signingKeys.refresh().catch(() => {}), SIGNING_KEY_POLL_MS);
    keyPoll.unref();
    return {
      store,
      cipher,
      appliedMigrations,
      signingKeys,
      embedSessions: new EmbedSessionService({ store, signingKeys, settings: { issuer: embed.issuer, audience: embed.audience } }),
      userGroups: new UserGroupService({ store, cipher }),
      apiKeys: new ApiKeyService({ store, cacheTtlMs: config.keyCacheTtlMs, revocations: opened.store.keyRevocations() }),
      dataTransfer: new DataTransfer(store, cipher),
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
