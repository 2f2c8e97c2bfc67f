import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { Environment } from './environment.js';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MIN_SECRET_LENGTH = 32;

/**
 * Authenticated encryption of user group tokens under a key derived from the
 * server secret, so GET can hand a token back without the store holding it in
 * plaintext. The ciphertext is bound to its group (environment + provided id)
 * as associated data: copying one row's ciphertext onto another fails to decrypt.
 *
 * Layout: [version 1 byte][iv 12][tag 16][ciphertext].
 */
export interface TokenCipher {
  encrypt(token: string, environment: Environment, providedId: string): Buffer;
  decrypt(ciphertext: Buffer, environment: Environment, providedId: string): string;
  /** A value that identifies the secret without revealing it, kept by the store to detect a wrong secret. */
  readonly secretCheck: string;
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

export function createTokenCipher(serverSecret: string): TokenCipher {
  if (!isUsableServerSecret(serverSecret)) {
    throw new Error(`The server secret must be ${SERVER_SECRET_RULE}.`);
  }
  const key = derive(serverSecret, 'token-encryption-v1');
  const secretCheck = createHmac('sha256', derive(serverSecret, 'secret-check-v1')).update('ugs').digest('base64url');
  return {
    secretCheck,
    encrypt(token, environment, providedId) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(associatedData(environment, providedId));
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([FORMAT_VERSION]), iv, cipher.getAuthTag(), body]);
    },
    decrypt(ciphertext, environment, providedId) {
      if (ciphertext[0] !== FORMAT_VERSION) throw new Error('Unknown token ciphertext version');
      const iv = ciphertext.subarray(1, 1 + IV_BYTES);
      const tag = ciphertext.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(associatedData(environment, providedId));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
