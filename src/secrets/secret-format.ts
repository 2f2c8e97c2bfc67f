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

/** 62⁴: four base62 digits at a time, below 2²⁴ so that a remainder times 2²⁴ plus a limb stays an exact double. */
const FOUR_DIGITS = 62 ** 4;
const LIMB = 2 ** 24;
const DIGIT_CODES = Buffer.from(ALPHABET, 'latin1');
const ZERO = 0x30;

/**
 * `bytes` as one big-endian number in base62, padded to `length` with '0'. Long division of 24-bit limbs by
 * 62⁴ in number arithmetic: the BigInt version (43 divisions and 43 remainders of a 256-bit value, each
 * digit prepended to a string) cost about 7 µs per token, most of what generating one cost.
 */
export function toBase62(bytes: Uint8Array, length: number): string {
  const limbs: number[] = [];
  const head = bytes.length % 3;
  let limb = 0;
  for (let i = 0; i < head; i++) limb = limb * 256 + bytes[i]!;
  if (head > 0) limbs.push(limb);
  for (let i = head; i < bytes.length; i += 3) limbs.push(bytes[i]! * 65536 + bytes[i + 1]! * 256 + bytes[i + 2]!);
  // A 24-bit limb holds a little over four digits: five each, and a last group of four, always suffice.
  const digits = Buffer.allocUnsafe(Math.max(length, limbs.length * 5 + 4));
  let at = digits.length;
  let first = 0;
  while (first < limbs.length) {
    let remainder = 0;
    for (let i = first; i < limbs.length; i++) {
      const current = remainder * LIMB + limbs[i]!;
      const quotient = Math.floor(current / FOUR_DIGITS);
      limbs[i] = quotient;
      remainder = current - quotient * FOUR_DIGITS;
    }
    while (first < limbs.length && limbs[first] === 0) first++;
    for (let digit = 0; digit < 4; digit++) {
      const quotient = Math.floor(remainder / 62);
      digits[--at] = DIGIT_CODES[remainder - quotient * 62]!;
      remainder = quotient;
    }
  }
  // The leading group of four may start with zeros the number does not have: the padding decides how many show.
  while (at < digits.length && digits[at] === ZERO) at++;
  const start = Math.min(at, digits.length - length);
  digits.fill(ZERO, start, at);
  return digits.toString('latin1', start);
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
