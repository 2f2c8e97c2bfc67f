import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StartupError } from '../kernel/errors.js';
import { makePrivateFolder, writeFileDurably } from '../platform/durable-file.js';
import {
  createTokenCipher,
  isUsableServerSecret,
  secretCheckOf,
  SERVER_SECRET_RULE,
  UnknownSecretError,
  type TokenCipher,
} from '../secrets/token-cipher.js';
import type { SecretHolder } from '../secrets/secret-rotation.js';
import { holderTtlMs, newHolderName, pruneHolders, readRotation, recordHolder } from '../secrets/secret-holders.js';
import type { SettingsStore } from '../kernel/settings-store.js';

/** How often a process checks the store for a server secret rotation by `ugs secret rotate` (which waits for every server). */
export const SECRET_POLL_MS = 5000;

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
    if (!isUsableServerSecret(value))
      throw new StartupError(`The server secret in ${path} is too short: it must be ${SERVER_SECRET_RULE}.`);
    return value;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === undefined) throw error;
    throw new StartupError(`Cannot read the server secret ${path} (check UGS_DATA_DIR, or set UGS_SECRET): ${(error as Error).message}`);
  }
}

/** The secrets the settings point at: the environment's, or the data dir's files (a new one generated when none exists). */
export function readSecrets(settings: SecretSettings): Secrets {
  if (settings.secret !== undefined) {
    return {
      current: settings.secret,
      previous: settings.previousSecret ? [settings.previousSecret] : [],
      source: 'UGS_SECRET',
      generated: false,
    };
  }
  const path = join(settings.dataDir, SECRET_FILE);
  const previous = readSecretFile(join(settings.dataDir, PREVIOUS_SECRET_FILE));
  const current = readSecretFile(path);
  if (current !== undefined) return { current, previous: previous ? [previous] : [], source: path, generated: false };
  return { current: randomBytes(32).toString('hex'), previous: [], source: path, generated: true };
}

/**
 * Saves a generated secret with mode 0600, making the data dir (0700) where it
 * is missing: on PostgreSQL nothing else has made it (a fresh machine). If
 * another process saved one first, that one wins.
 */
function persistGenerated(settings: SecretSettings, secrets: Secrets): Secrets {
  const path = join(settings.dataDir, SECRET_FILE);
  try {
    makePrivateFolder(settings.dataDir);
    writeFileDurably(path, `${secrets.current}\n`, { exclusive: true });
    return { ...secrets, generated: false };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return readSecrets(settings);
    if (code === undefined) throw error;
    throw new StartupError(
      `Cannot write the new server secret to ${path} (check UGS_DATA_DIR, or set UGS_SECRET): ${(error as Error).message}`,
    );
  }
}

/** What a serving process says about itself in its holder row (see secret-holders.ts). */
interface Announcement {
  name: string;
  ttlMs: number;
  lastWritten: number;
  lastState: string;
}

/**
 * The token cipher of a process. It seals under the secret whose fingerprint
 * the store records, not simply the configured one: during a rotation, servers
 * already given the new secret keep sealing under the old one until `ugs
 * secret rotate` records the new fingerprint, so a server not yet restarted
 * can read every token. It follows the store's fingerprint (checked every
 * `pollMs`) and, with a data-dir secret, the data dir's files, so a rotation
 * needs no restart. A serving process also records itself in the store.
 */
export class SecretKeyring implements TokenCipher {
  private secrets: string[];
  private cipher: TokenCipher;
  private timer: NodeJS.Timeout | undefined;
  private announcement: Announcement | undefined;
  private store: SettingsStore | undefined;

  constructor(
    private readonly settings: SecretSettings,
    secrets: Secrets,
    sealingCheck?: string,
  ) {
    this.secrets = [secrets.current, ...secrets.previous];
    this.cipher = this.build(sealingCheck);
  }

  get secretCheck(): string {
    return this.cipher.secretCheck;
  }

  get knownChecks(): readonly string[] {
    return this.cipher.knownChecks;
  }

  /** The check of the configured secret (UGS_SECRET, or the data dir's current file). */
  get configuredCheck(): string {
    return secretCheckOf(this.secrets[0]!);
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

  seal(plaintext: string, context: string): Buffer {
    return this.cipher.seal(plaintext, context);
  }

  open(ciphertext: Buffer, context: string): string {
    try {
      return this.cipher.open(ciphertext, context);
    } catch (error) {
      if (!(error instanceof UnknownSecretError) || !this.reload()) throw error;
      return this.cipher.open(ciphertext, context);
    }
  }

  isCurrent(ciphertext: Buffer): boolean {
    return this.cipher.isCurrent(ciphertext);
  }

  /** Seals under the secret with this check from now on; false when this process does not have it. */
  follow(check: string): boolean {
    if (check === this.cipher.secretCheck) return true;
    if (!this.cipher.knownChecks.includes(check) && !(this.reload() && this.cipher.knownChecks.includes(check))) return false;
    this.cipher = this.build(check);
    return true;
  }

  /** Rereads the data dir's secret files; false when secrets come from the environment (they cannot change). */
  reload(): boolean {
    if (this.settings.secret !== undefined) return false;
    const secrets = readSecrets(this.settings);
    if (secrets.generated) return false;
    this.secrets = [secrets.current, ...secrets.previous];
    this.cipher = this.build(this.cipher.secretCheck);
    return true;
  }

  /**
   * Follows fingerprint changes made by `ugs secret rotate` in another
   * process, checking every `pollMs`; with `announce`, records this process
   * in the store (and has done so once this resolves).
   */
  async watch(store: SettingsStore, pollMs: number, announce: boolean): Promise<void> {
    if (this.timer) return;
    this.store = store;
    if (announce) {
      this.announcement = { name: newHolderName(), ttlMs: holderTtlMs(pollMs), lastWritten: 0, lastState: '' };
      await pruneHolders(store).catch(() => {});
    }
    await this.tick();
    this.timer = setInterval(() => void this.tick(), pollMs);
    this.timer.unref();
  }

  /** Stops watching and removes this process's row from the store. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const announcement = this.announcement;
    this.announcement = undefined;
    if (announcement && this.store) await this.store.deleteSetting(announcement.name).catch(() => {});
  }

  private async tick(): Promise<void> {
    if (!this.store) return;
    try {
      const recorded = await this.store.getSetting(SECRET_CHECK_SETTING);
      if (recorded !== null) this.follow(recorded);
      await this.announce();
    } catch {
      // The store is not answering: requests report that; try again next time.
    }
  }

  private async announce(): Promise<void> {
    const a = this.announcement;
    if (!a || !this.store) return;
    const holder: SecretHolder = {
      pid: process.pid,
      host: hostname(),
      source: this.settings.secret !== undefined ? 'UGS_SECRET' : 'data dir',
      dataDir: this.settings.secret !== undefined ? null : resolve(this.settings.dataDir),
      configured: this.configuredCheck,
      known: [...this.cipher.knownChecks],
      sealing: this.cipher.secretCheck,
      seenAt: '',
      ttlMs: a.ttlMs,
    };
    const state = JSON.stringify(holder);
    const now = Date.now();
    if (state === a.lastState && now - a.lastWritten < a.ttlMs / 3) return;
    await recordHolder(this.store, a.name, { ...holder, seenAt: new Date(now).toISOString() });
    a.lastState = state;
    a.lastWritten = now;
  }

  /** A cipher over every known secret, sealing under the one with `sealingCheck` (else the configured one). */
  private build(sealingCheck: string | undefined): TokenCipher {
    const sealing = this.secrets.find((secret) => secretCheckOf(secret) === sealingCheck) ?? this.secrets[0]!;
    return createTokenCipher(
      sealing,
      this.secrets.filter((secret) => secret !== sealing),
    );
  }
}

/**
 * The server secret, from UGS_SECRET or the data dir (generated there on first
 * start), checked against the fingerprint the store keeps, so a missing or
 * wrong secret stops start-up instead of failing every token read later. A
 * store whose fingerprint is that of a previous secret (a rotation under way)
 * is accepted, and sealed under; a rotation left unfinished needs the secret it
 * moves from, as tokens may still be sealed under it.
 */
export async function loadServerSecret(store: SettingsStore, settings: SecretSettings): Promise<SecretKeyring> {
  let secrets = readSecrets(settings);
  const recorded = await store.getSetting(SECRET_CHECK_SETTING);
  if (recorded === null && secrets.generated) secrets = persistGenerated(settings, secrets);

  const configured = new SecretKeyring(settings, secrets);
  const expected = recorded ?? (await store.putSettingIfAbsent(SECRET_CHECK_SETTING, configured.secretCheck));
  if (!configured.knownChecks.includes(expected)) {
    if (secrets.generated) {
      throw new StartupError(
        `This store was created with a server secret, but none was found: set UGS_SECRET to it, or copy its server-secret file to ${secrets.source} (from a backup, or from the data dir of a machine already serving this store).`,
      );
    }
    throw new StartupError(
      `The server secret from ${secrets.source} is not the one this store was created with; use the original secret (while rotating, keep the old one as UGS_PREVIOUS_SECRET until \`ugs secret rotate\` has finished).`,
    );
  }
  const rotation = await readRotation(store);
  if (rotation && rotation.finishedAt === null && !configured.knownChecks.includes(rotation.from)) {
    throw new StartupError(
      'A server secret rotation is unfinished and some tokens may still be sealed under the previous secret, which this process does not have: start it with UGS_PREVIOUS_SECRET set to the previous secret (data dir: keep server-secret.previous) until `ugs secret rotate` has finished.',
    );
  }
  return new SecretKeyring(settings, secrets, expected);
}
