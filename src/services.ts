import type { Config } from './config.js';
import { ApiKeyService } from './domain/api-key-service.js';
import { DataTransfer } from './domain/data-transfer.js';
import { UserGroupService } from './domain/user-group-service.js';
import { loadServerSecret } from './server-secret.js';
import { openStore } from './store/open-store.js';
import type { Store } from './store/store.js';

/** Everything the HTTP layer and the CLI call: one composition root for both. */
export interface Services {
  store: Store;
  userGroups: UserGroupService;
  apiKeys: ApiKeyService;
  dataTransfer: DataTransfer;
  appliedMigrations: string[];
  close(): Promise<void>;
}

export async function openServices(config: Pick<Config, 'dataDir' | 'secret' | 'postgres'>): Promise<Services> {
  const { store, appliedMigrations } = await openStore(config);
  try {
    const cipher = await loadServerSecret(store, config.dataDir, config.secret);
    return {
      store,
      appliedMigrations,
      userGroups: new UserGroupService({ store, cipher }),
      apiKeys: new ApiKeyService({ store }),
      dataTransfer: new DataTransfer(store, cipher),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
