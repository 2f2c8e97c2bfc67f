import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from './domain/errors.js';
import { writeFileDurably } from './durable-file.js';
import { createTokenCipher, isUsableServerSecret, SERVER_SECRET_RULE, UnknownSecretError, type TokenCipher } from './domain/token-cipher.js';
import type { Store } from './store/store.js';

export const SECRET_FILE = 'server-secret';
export const PREVIOUS_SECRET_FILE = 'server-secret.previous';
export const SECRET_CHECK_SETTING = 'server_secret_check';

export interface SecretSettings {
  dataDir: string;
  /** UGS_SECRET: when set, secrets come from the environment and the data dir holds none. */
  secret: string | undefined;
  /** UGS_PREVIOUS_SECRET: still readable while `ugs secret rotate` moves tokens to UGS_SECRET. */
  previousSecret: string | undefined;
}

interface Secrets {
  current: string;
  previous: string[];
  source: string;
  /** True when made up just now: it may be saved only if the store has never seen a secret. */
  generated: boolean;
}

function readSecretFile(path: string): string | undefined {
  try {
    const value = readFileSync(path, 'utf8').trim();
    if (!isUsableServerSecret(value)) throw new StartupError(`The server secret in ${path} is too short: it must be ${SERVER_SECRET_RULE}.`);
    return value;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The secrets the settings point at: the environment's, or the data dir's files (a new one generated when none exists). */
export function readSecrets(settings: SecretSettings): Secrets {
  if (settings.secret !== undefined) {
    return { current: settings.secret, previous: settings.previousSecret ? [settings.previousSecret] : [], source: 'UGS_SECRET', generated: false };
  }
  const path = join(settings.dataDir, SECRET_FILE);
  const previous = readSecretFile(join(settings.dataDir, PREVIOUS_SECRET_FILE));
  const current = readSecretFile(path);
  if (current !== undefined) return { current, previous: previous ? [previous] : [], source: path, generated: false };
  return { current: randomBytes(32).toString('hex'), previous: [], source: path, generated: true };
}

/** Saves a generated secret with mode 0600; if another process saved one first, that one wins. */
function persistGenerated(settings: SecretSettings, secrets: Secrets): Secrets {
  try {
    writeFileDurably(join(settings.dataDir, SECRET_FILE), `${secrets.current}\n`, { exclusive: true });
    return { ...secrets, generated: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readSecrets(settings);
  }
}

/**
 * A token cipher that follows the data dir's secret files while it runs, so
 * `ugs secret rotate` needs no restart: it reloads when it meets a token sealed
 * under a secret it does not know, and when the store's secret fingerprint
 * changes (checked every `pollMs`), so new tokens are sealed under the new secret.
 */
export class SecretKeyring implements TokenCipher {
  private cipher: TokenCipher;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: SecretSettings,
    secrets: Secrets,
  ) {
    this.cipher = createTokenCipher(secrets.current, secrets.previous);
  }

  get secretCheck(): string {
    return this.cipher.secretCheck;
  }

  get knownChecks(): readonly string[] {
    return this.cipher.knownChecks;
  }

  encrypt(token: string, environment: Parameters<TokenCipher['encrypt']>[1], providedId: string): Buffer {
    return this.cipher.encrypt(token, environment, providedId);
  }

  decrypt(ciphertext: Buffer, environment: Parameters<TokenCipher['decrypt']>[1], providedId: string): string {
    try {
      return this.cipher.decrypt(ciphertext, environment, providedId);
    } catch (error) {
      if (!(error instanceof UnknownSecretError) || !this.reload()) throw error;
      return this.cipher.decrypt(ciphertext, environment, providedId);
    }
  }

  isCurrent(ciphertext: Buffer): boolean {
    return this.cipher.isCurrent(ciphertext);
  }

  /** Rereads the data dir's secret files; false when secrets come from the environment (they cannot change). */
  reload(): boolean {
    if (this.settings.secret !== undefined) return false;
    const secrets = readSecrets(this.settings);
    if (secrets.generated) return false;
    this.cipher = createTokenCipher(secrets.current, secrets.previous);
    return true;
  }

  /** Follows fingerprint changes made by `ugs secret rotate` in another process. */
  watch(store: Store, pollMs: number): void {
    if (this.settings.secret !== undefined || this.timer) return;
    this.timer = setInterval(() => {
      store.getSetting(SECRET_CHECK_SETTING).then(
        (recorded) => {
          if (recorded !== null && recorded !== this.cipher.secretCheck) this.reload();
        },
        () => {},
      );
    }, pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * The server secret, from UGS_SECRET or the data dir (generated there on first
 * start), checked against the fingerprint the store keeps, so a missing or
 * wrong secret stops start-up instead of failing every token read later. A
 * store whose fingerprint is that of a previous secret (a rotation under way)
 * is accepted.
 */
export async function loadServerSecret(store: Store, settings: SecretSettings): Promise<SecretKeyring> {
  let secrets = readSecrets(settings);
  const recorded = await store.getSetting(SECRET_CHECK_SETTING);
  if (recorded === null && secrets.generated) secrets = persistGenerated(settings, secrets);

  const keyring = new SecretKeyring(settings, secrets);
  const expected = recorded ?? (await store.putSettingIfAbsent(SECRET_CHECK_SETTING, keyring.secretCheck));
  if (keyring.knownChecks.includes(expected)) return keyring;
  if (secrets.generated) {
    throw new StartupError(`This store was created with a server secret, but none was found: set UGS_SECRET or restore ${secrets.source}.`);
  }
  throw new StartupError(`The server secret from ${secrets.source} is not the one this store was created with; use the original secret.`);
}
