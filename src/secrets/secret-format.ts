import { hash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { secureRandomBytes } from './random-pool.js';

/**
 * Shared shape of every secret the service hands out: `<prefix><body><checksum>`.
 * - body: 32 bytes from the CSPRNG (256 bits) in base62, always 43 characters;
 * - checksum: CRC32 of prefix + body in base62, always 6 characters.
 * Base62 keeps the value URL-safe and selectable with a double click; the fixed
 * prefix and the checksum let us refuse a mistyped value without a store lookup,
 * and let secret scanners recognise a leaked one with no false positives.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_BYTES = 32;
const BODY_LENGTH = 43; // ceil(256 / log2(62))
const CHECKSUM_LENGTH = 6; // ceil(32 / log2(62))

function toBase62(bytes: Buffer, length: number): string {
  let value = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(length, '0');
}

/** toBase62 of the 4-byte CRC, in number arithmetic: it runs on every authenticated request. */
function checksumOf(prefixAndBody: string): string {
  let value = crc32(prefixAndBody) >>> 0;
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/**
 * The prefix of each secret the service hands out in this shape, kept here beside the shape rather than in the
 * concepts that issue them, so that redaction (secret-redaction.ts) knows every one without importing any concept.
 */
export const SECRET_PREFIXES = { apiKey: 'ugsk_', userGroupToken: 'ugt_', consoleSessionId: 'ugsc_' } as const;

export interface SecretFormat {
  readonly prefix: string;
  /** A new random secret in this format. */
  generate(): string;
  /** True when `value` has this prefix, the right length and alphabet, and a valid checksum. */
  isWellFormed(value: string): boolean;
}

export function secretFormat(prefix: string): SecretFormat {
  const totalLength = prefix.length + BODY_LENGTH + CHECKSUM_LENGTH;
  const shape = new RegExp(`^${prefix}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
  return {
    prefix,
    generate() {
      const body = toBase62(secureRandomBytes(BODY_BYTES), BODY_LENGTH);
      return prefix + body + checksumOf(prefix + body);
    },
    isWellFormed(value) {
      if (value.length !== totalLength || !shape.test(value)) return false;
      // A plain comparison: the checksum is computable from the rest of the value, so it hides nothing.
      return checksumOf(value.slice(0, -CHECKSUM_LENGTH)) === value.slice(-CHECKSUM_LENGTH);
    },
  };
}

/**
 * The lookup hash of a secret. Plain SHA-256 is enough: the secrets carry 256
 * random bits, so there is nothing to brute-force, and hashes stay valid when
 * the server secret is rotated.
 */
export function hashSecret(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Constant-time equality for two secret hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
