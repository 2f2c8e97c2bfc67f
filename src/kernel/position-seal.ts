import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { ENVIRONMENTS, type Environment } from './environment.js';
import { invalidRequest } from './errors.js';
import type { SettingsStore } from './settings-store.js';

/** The store setting holding the key: made once by whichever process needs it first, the same for every replica. */
export const POSITION_SEAL_SETTING = 'position_seal_key';

/**
 * What a sealed position is: a page cursor, or an id shown to callers. Each has its own code in the
 * block, so a value handed out for one is refused as another.
 */
const PURPOSES = { events: 1, revocations: 2, deliveries: 3, 'delivery-id': 4 } as const;
export type SealPurpose = keyof typeof PURPOSES;

const BLOCK = 16;
const MARK = Buffer.from('ugs-p1');

/**
 * The positions the store numbers with one sequence for both environments
 * (events, revocation feed entries, webhook deliveries), as callers see them:
 * sealed, so that the distance between two a key was handed out does not count
 * the other environment's activity. Each is one AES-256 block: a block cipher
 * under a secret key is a pseudorandom permutation, so the same position gives
 * the same text (a cursor stays put while nothing happens) and nothing else
 * shows, neither order nor distance. The position fills 8 bytes; the purpose,
 * the environment and a fixed mark fill the other 8, so a made-up value, or
 * one handed out for the other environment or another list, fails to open
 * (but for a 1 in 2^64 chance).
 *
 * The key sits in the store's settings in clear: whoever reads the store sees
 * the sequences themselves anyway; it is kept from API callers only.
 */
export class PositionSeal {
  private key: Promise<KeyObject> | undefined;

  constructor(private readonly settings: Pick<SettingsStore, 'putSettingIfAbsent'>) {}

  /** Seals and opens the positions of one environment. */
  async forEnvironment(environment: Environment): Promise<EnvironmentSeal> {
    this.key ??= this.settings
      .putSettingIfAbsent(POSITION_SEAL_SETTING, randomBytes(32).toString('base64url'))
      .then((value) => createSecretKey(Buffer.from(value, 'base64url')));
    // A failed read is tried again by the next request, not remembered.
    const key = await this.key.catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return new EnvironmentSeal(key, ENVIRONMENTS.indexOf(environment) + 1);
  }
}

export class EnvironmentSeal {
  constructor(
    private readonly key: KeyObject,
    private readonly environmentCode: number,
  ) {}

  seal(purpose: SealPurpose, position: number): string {
    const block = Buffer.alloc(BLOCK);
    block.writeBigUInt64BE(BigInt(position), 0);
    this.tail(purpose).copy(block, 8);
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  /** The position, or undefined when `text` was not sealed for this purpose and environment with this key. */
  open(purpose: SealPurpose, text: string): number | undefined {
    const sealed = Buffer.from(text, 'base64url');
    if (sealed.length !== BLOCK || sealed.toString('base64url') !== text) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(sealed), decipher.final()]);
    if (!block.subarray(8).equals(this.tail(purpose))) return undefined;
    const position = block.readBigUInt64BE(0);
    return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : undefined;
  }

  /** `open` for a cursor a caller passed back in the query parameter `parameter`: a 400 saying what to send when it fails. */
  openCursor(purpose: SealPurpose, text: string, parameter: string): number {
    const position = this.open(purpose, text);
    if (position === undefined) {
      throw invalidRequest(
        `"${parameter}" is not a cursor this service handed out to this environment; pass next_cursor from the previous page unchanged, or leave it out to start again.`,
      );
    }
    return position;
  }

  private tail(purpose: SealPurpose): Buffer {
    return Buffer.concat([Buffer.from([PURPOSES[purpose], this.environmentCode]), MARK]);
  }
}

/** A sealed position is 16 bytes in base64url: 22 characters. */
export const SEALED_PATTERN = '^[A-Za-z0-9_-]{22}$';
