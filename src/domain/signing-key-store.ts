import type { SigningKeyRecord } from './signing-key.js';

/**
 * The storage SigningKeys needs: a port, implemented in src/store for each
 * database and held to it by the store conformance suite. Keys are global
 * (one set for both environments): a verifier needs one JWKS URL.
 */
export interface SigningKeyStore {
  /** Every stored key, in generation order. */
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /**
   * Adds the key unless its generation is taken (another process added that
   * step first): false then. A rotation (`announce`) also writes a
   * `signing_key.rotated` event into every environment's outbox, in the same
   * transaction; the first key of a new store is not a rotation.
   */
  insertSigningKey(key: SigningKeyRecord, announce?: boolean): Promise<boolean>;
  /** Removes keys no live token can carry any more. */
  deleteSigningKeys(kids: readonly string[]): Promise<void>;
  /**
   * Re-seals a key's unchanged private half (server secret rotation): swaps
   * the ciphertext if the row still holds `expected`; false otherwise.
   */
  replaceSigningKeyCiphertext(kid: string, expected: Buffer, next: Buffer): Promise<boolean>;
}
