import type { Environment } from '../kernel/environment.js';
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
   * (another process added that step first): false then. A rotation
   * (`announce`) also writes a `signing_key.rotated` event into the key's
   * environment's outbox, in the same transaction; the first key of an
   * environment is not a rotation.
   */
  insertSigningKey(key: SigningKeyRecord, announce?: boolean): Promise<boolean>;
  /** Removes keys of the environment no live token can carry any more. */
  deleteSigningKeys(environment: Environment, kids: readonly string[]): Promise<void>;
  /**
   * Re-seals a key's unchanged private half (server secret rotation): swaps
   * the ciphertext if the row still holds `expected`; false otherwise.
   */
  replaceSigningKeyCiphertext(environment: Environment, kid: string, expected: Buffer, next: Buffer): Promise<boolean>;
}
