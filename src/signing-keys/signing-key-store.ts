import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { SigningKeyRecord } from './signing-key.js';

/**
 * The storage SigningKeys needs: a port, implemented in src/store for each
 * database and held to it by the store conformance suite. Each environment
 * has its own keys (and its own JWKS), so that a token minted with a Testing
 * key never verifies where Customer tokens are expected.
 */
export interface SigningKeyStore {
  /** The environment's keys, in generation order. */
  listSigningKeys(environment: Environment): Promise<SigningKeyRecord[]>;
  /**
   * Adds the key to its environment unless that generation is taken there
   * (another process added that step first): false then. The consequences
   * SigningKeys hands over (a rotation's `signing_key.rotated` event; the
   * first key of an environment is no rotation and has none) are appended in
   * the same transaction, and only when the key was added.
   */
  insertSigningKey(key: SigningKeyRecord, consequences?: WriteConsequences): Promise<boolean>;
  /** Removes keys of the environment no live token can carry any more. */
  deleteSigningKeys(environment: Environment, kids: readonly string[]): Promise<void>;
  /**
   * Re-seals a key's unchanged private half (server secret rotation): swaps
   * the ciphertext if the row still holds `expected`; false otherwise.
   */
  replaceSigningKeyCiphertext(environment: Environment, kid: string, expected: Buffer, next: Buffer): Promise<boolean>;
}
