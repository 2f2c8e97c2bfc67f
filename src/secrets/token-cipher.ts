import { createCipheriv, createDecipheriv, createHmac, hkdfSync, createSecretKey, type KeyObject } from 'node:crypto';
import type { Environment } from '../kernel/environment.js';
import { DecryptedTokenCache } from './decrypted-token-cache.js';
import { secureRandomBytes } from './random-pool.js';

const FORMAT_VERSION = 2;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES;
const MIN_SECRET_LENGTH = 32;

/**
 * Authenticated encryption of user group tokens under keys derived from the
 * server secret, so GET can hand a token back without the store holding it in
 * plaintext. The ciphertext is bound to its group (environment + provided id)
 * as associated data: copying one row's ciphertext onto another fails to decrypt.
 *
 * Layout: [version 1 byte][key id 8][iv 12][tag 16][ciphertext]. The key id
 * says which secret sealed it, so during a secret rotation tokens under the
 * previous secret stay readable while they are re-encrypted.
 */
export interface TokenCipher {
  /** Seals under the current secret. */
  encrypt(token: string, environment: Environment, providedId: string): Buffer;
  /** Opens with whichever known secret sealed it; throws UnknownSecretError if none did. */
  decrypt(ciphertext: Buffer, environment: Environment, providedId: string): string;
  /**
   * Seals any other secret the service keeps (a signing key's private half),
   * bound to `context`, a label no token's associated data can take (tokens
   * use an environment name and an id; contexts here start with a lower-case word and a colon).
   */
  seal(plaintext: string, context: string): Buffer;
  /** Opens what `seal` sealed with the same `context`; throws UnknownSecretError as decrypt does. */
  open(ciphertext: Buffer, context: string): string;
  /** True when `ciphertext` was sealed under the current secret. */
  isCurrent(ciphertext: Buffer): boolean;
  /** Identifies the current secret without revealing it; the store keeps it to detect a wrong secret. */
  readonly secretCheck: string;
  /** The checks of every secret this cipher can open (current first). */
  readonly knownChecks: readonly string[];
}

export class UnknownSecretError extends Error {
  override name = 'UnknownSecretError';
}

export function isUsableServerSecret(secret: string): boolean {
  return secret.length >= MIN_SECRET_LENGTH;
}

export const SERVER_SECRET_RULE = `at least ${MIN_SECRET_LENGTH} characters (e.g. the output of \`openssl rand -hex 32\`)`;

function derive(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'user-group-service', purpose, 32));
}

function associatedData(environment: Environment, providedId: string): Buffer {
  return Buffer.from(`${environment}\u0000${providedId}`);
}

/** Tokens' associated data never contains a colon before its NUL (environments are Customer and Testing). */
function contextData(context: string): Buffer {
  if (!/^[a-z][a-z-]*:/.test(context))
    throw new Error(`A sealing context starts with a lower-case word and a colon, not ${JSON.stringify(context)}`);
  return Buffer.from(context);
}

function sealWith(key: Key, plaintext: string, aad: Buffer): Buffer {
  const iv = secureRandomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.encryption, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([FORMAT_VERSION]), key.id, iv, cipher.getAuthTag(), body]);
}

function openWith(byId: Map<string, Key>, ciphertext: Buffer, aad: Buffer): string {
  if (ciphertext[0] !== FORMAT_VERSION || ciphertext.length < HEADER_BYTES) throw new Error('Unknown ciphertext format');
  const key = byId.get(ciphertext.subarray(1, 1 + KEY_ID_BYTES).toString('hex'));
  if (!key) throw new UnknownSecretError('This was sealed under a server secret this process does not know.');
  const ivStart = 1 + KEY_ID_BYTES;
  const decipher = createDecipheriv('aes-256-gcm', key.encryption, ciphertext.subarray(ivStart, ivStart + IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(ciphertext.subarray(ivStart + IV_BYTES, HEADER_BYTES));
  return Buffer.concat([decipher.update(ciphertext.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
}

interface Key {
  id: Buffer;
  /** A KeyObject, not the bytes: node:crypto checks a Buffer key's type by catching an exception, ~10 µs per cipher made. */
  encryption: KeyObject;
  check: string;
}

function keyFor(secret: string): Key {
  if (!isUsableServerSecret(secret)) throw new Error(`The server secret must be ${SERVER_SECRET_RULE}.`);
  const check = createHmac('sha256', derive(secret, 'secret-check-v1')).update('ugs').digest('base64url');
  return {
    id: derive(secret, 'key-id-v1').subarray(0, KEY_ID_BYTES),
    encryption: createSecretKey(derive(secret, 'token-encryption-v1')),
    check,
  };
}

/** The check (fingerprint) of a secret, as `TokenCipher.secretCheck` gives it; reveals nothing of the secret. */
export function secretCheckOf(secret: string): string {
  return keyFor(secret).check;
}

/** A cipher sealing under `current` and opening under `current` or any of `previous`. */
export function createTokenCipher(current: string, previous: readonly string[] = []): TokenCipher {
  const sealing = keyFor(current);
  const keys = [sealing, ...previous.map(keyFor)];
  const byId = new Map(keys.map((k) => [k.id.toString('hex'), k]));
  // Per cipher: a keyring that drops a secret builds a new cipher, so nothing opened under it is answered after.
  const opened = new DecryptedTokenCache();
  return {
    secretCheck: sealing.check,
    knownChecks: keys.map((k) => k.check),
    encrypt(token, environment, providedId) {
      return sealWith(sealing, token, associatedData(environment, providedId));
    },
    decrypt(ciphertext, environment, providedId) {
      return opened.get(ciphertext, environment, providedId, () => openWith(byId, ciphertext, associatedData(environment, providedId)));
    },
    seal(plaintext, context) {
      return sealWith(sealing, plaintext, contextData(context));
    },
    open(ciphertext, context) {
      return openWith(byId, ciphertext, contextData(context));
    },
    isCurrent(ciphertext) {
      return ciphertext[0] === FORMAT_VERSION && ciphertext.subarray(1, 1 + KEY_ID_BYTES).equals(sealing.id);
    },
  };
}
