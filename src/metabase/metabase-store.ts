import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { MetabaseSettingsRecord } from './metabase-settings.js';

/**
 * The storage MetabaseService needs: a port, implemented once for both databases in src/store and held to it by
 * the store conformance suite. Each write appends the consequences it is handed in its own transaction.
 */
export interface MetabaseStore {
  findMetabaseSettings(environment: Environment): Promise<MetabaseSettingsRecord | null>;
  /** Creates or replaces the environment's settings (created_at kept on a replace). */
  putMetabaseSettings(record: MetabaseSettingsRecord, consequences: WriteConsequences): Promise<MetabaseSettingsRecord>;
  /** False when there was nothing to remove (and nothing is appended). */
  deleteMetabaseSettings(environment: Environment, consequences: WriteConsequences): Promise<boolean>;
  /** Appends what a write-less action leaves (a mint's audit record). */
  appendRecord(consequences: WriteConsequences): Promise<void>;
}

/** Every environment's sealed Metabase secret, for `ugs secret rotate`. */
export interface MetabaseSecretResealStore {
  listMetabaseSecrets(): Promise<{ environment: Environment; secretCiphertext: Buffer }[]>;
  /** Swaps one sealed secret if the row still holds `expected`; false otherwise. */
  replaceMetabaseSecretCiphertext(environment: Environment, expected: Buffer, next: Buffer): Promise<boolean>;
}
