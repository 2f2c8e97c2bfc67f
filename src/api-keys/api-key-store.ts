import type { ApiKeyRecord } from './api-key.js';
import type { KeyRevocationSignal } from './key-revocation-signal.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';

/**
 * The storage ApiKeyService needs: a port, implemented in src/store. A write
 * appends the consequences it is handed (the service decides them) in its own
 * transaction, and only when it changed something.
 */
export interface ApiKeyStore {
  insertApiKey(key: ApiKeyRecord, consequences: WriteConsequences): Promise<void>;
  findApiKeyByHash(keyHash: Buffer): Promise<ApiKeyRecord | null>;
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked unless it is already (the first revocation time stays); true when this call revoked it. */
  revokeApiKey(id: string, revokedAt: string, consequences: WriteConsequences): Promise<boolean>;
  /**
   * Tells this process's key cache of revocations made through any connection
   * to this store (see KeyRevocationSignal for how exact each store is).
   */
  keyRevocations(): KeyRevocationSignal;
  recordApiKeyUse(id: string, usedAt: string): Promise<void>;
}
