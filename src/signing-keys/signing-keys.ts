import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { ENVIRONMENTS, type Environment } from '../kernel/environment.js';
import { ServiceError } from '../kernel/errors.js';
import {
  generateSigningKeyPair,
  signingKeySealContext,
  signingKeyTimeline,
  type SigningAlgorithm,
  type SigningKeyPhase,
  type SigningKeyRecord,
} from './signing-key.js';
import type { SettingsStore } from '../kernel/settings-store.js';
import type { SigningKeyStore } from './signing-key-store.js';
import { signingKeyRotated } from './signing-key-consequences.js';
import type { TokenCipher } from '../secrets/token-cipher.js';

/** How often a process rereads the keys; well under the least JWKS max-age (60 s), which a new key waits before it signs. */
export const SIGNING_KEY_POLL_MS = 10_000;

/** The store setting holding the JWKS max-age of the most recently started serving process. */
export const JWKS_MAX_AGE_SETTING = 'embed_jwks_max_age_seconds';

export interface SigningKeysDeps {
  /** Whose keys these are: each environment signs with its own. */
  environment: Environment;
  store: SigningKeyStore;
  /** Where serving processes record the JWKS max-age they promised verifiers. */
  settings: Pick<SettingsStore, 'getSetting' | 'putSetting'>;
  cipher: TokenCipher;
  /** The algorithm of keys this process creates (the first one, and each rotation). */
  algorithm: SigningAlgorithm;
  /** How long verifiers may cache the JWKS: a new key waits this long before it signs. */
  jwksMaxAgeSeconds: number;
  now?: () => Date;
}

export interface ActiveSigningKey {
  kid: string;
  algorithm: SigningAlgorithm;
  privateKey: KeyObject;
}

/**
 * One environment's embed token signing keys, which every process shares
 * through the store: the first is created on first start; `rotate` schedules
 * the next. Each process keeps the rows in memory and rereads them with
 * `refresh` (the composition root polls more often than a rotation waits),
 * so signing never reads the store.
 */
export class SigningKeys {
  private readonly store: SigningKeyStore;
  private readonly cipher: TokenCipher;
  private readonly now: () => Date;
  private keys: SigningKeyRecord[] = [];
  private readonly privateKeys = new Map<string, KeyObject>();
  private activeKept: { keys: SigningKeyRecord[]; phase: SigningKeyPhase; from: number; until: number } | undefined;
  private readonly publicKeys = new Map<string, KeyObject>();

  constructor(private readonly deps: SigningKeysDeps) {
    this.store = deps.store;
    this.cipher = deps.cipher;
    this.now = deps.now ?? (() => new Date());
  }

  get environment(): Environment {
    return this.deps.environment;
  }

  /** How long verifiers may cache the JWKS (its Cache-Control max-age). */
  get jwksMaxAgeSeconds(): number {
    return this.deps.jwksMaxAgeSeconds;
  }

  /**
   * Reads the keys, creating the first one when the environment has none (once,
   * however many processes start together). A serving process also records
   * the JWKS max-age it promises verifiers, so that a rotation run elsewhere
   * (the CLI, with other settings) waits at least that long.
   */
  async load(options: { serving?: boolean } = {}): Promise<void> {
    if (options.serving) await this.deps.settings.putSetting(JWKS_MAX_AGE_SETTING, String(this.deps.jwksMaxAgeSeconds));
    await this.refresh();
    if (this.keys.length > 0) return;
    await this.add(1, this.now());
    await this.refresh();
  }

  async refresh(): Promise<void> {
    this.keys = await this.store.listSigningKeys(this.deps.environment);
  }

  /** The key that signs now. */
  active(): ActiveSigningKey {
    const phase = this.activePhase();
    if (!phase)
      throw new ServiceError('unavailable', `No ${this.deps.environment} embed signing key is active yet; retry shortly.`, {
        retryAfterSeconds: 5,
      });
    const { kid, algorithm } = phase.key;
    let privateKey = this.privateKeys.get(kid);
    if (!privateKey) {
      privateKey = createPrivateKey(this.cipher.open(phase.key.privateKeyCiphertext, signingKeySealContext(kid)));
      this.privateKeys.set(kid, privateKey);
    }
    return { kid, algorithm, privateKey };
  }

  /**
   * The phase of the key that signs now. Kept between calls for as long as it stays the one (from its activation to
   * the next key's, with the same key list): every mint asks, and the timeline costs a sort and a date per key.
   */
  private activePhase(): SigningKeyPhase | undefined {
    const now = this.now().getTime();
    const kept = this.activeKept;
    if (kept && kept.keys === this.keys && now >= kept.from && now < kept.until) return kept.phase;
    const phase = this.timeline().find((p) => p.state === 'active');
    this.activeKept = phase && {
      keys: this.keys,
      phase,
      from: Date.parse(phase.key.activatesAt),
      until: phase.signsUntil === null ? Infinity : Date.parse(phase.signsUntil),
    };
    return phase;
  }

  /** The active key's algorithm, without opening its private key; undefined while none is active. */
  activeAlgorithm(): SigningAlgorithm | undefined {
    return this.timeline().find((p) => p.state === 'active')?.key.algorithm;
  }

  /** The public key of a published key (pending, active or retired), for checking a token; undefined otherwise. */
  verificationKey(kid: string): { algorithm: SigningAlgorithm; publicKey: KeyObject } | undefined {
    const phase = this.published().find((p) => p.key.kid === kid);
    if (!phase) return undefined;
    let publicKey = this.publicKeys.get(kid);
    if (!publicKey) {
      publicKey = createPublicKey({ key: phase.key.publicJwk as JsonWebKey, format: 'jwk' });
      this.publicKeys.set(kid, publicKey);
    }
    return { algorithm: phase.key.algorithm, publicKey };
  }

  /** What the environment's JWKS publishes: every key a live token may carry, and the next one. */
  jwks(): { keys: JWK[] } {
    return { keys: this.published().map((p) => p.key.publicJwk) };
  }

  timeline(): SigningKeyPhase[] {
    return signingKeyTimeline(this.keys, this.now());
  }

  /**
   * Publishes a new key now; it signs once every verifier's cached JWKS has
   * expired. Keys no live token can carry any more are dropped.
   */
  async rotate(): Promise<SigningKeyPhase> {
    for (;;) {
      await this.refresh();
      const now = this.now();
      const expired = this.timeline()
        .filter((p) => p.state === 'expired')
        .map((p) => p.key.kid);
      if (expired.length > 0) await this.store.deleteSigningKeys(this.deps.environment, expired);
      const generation = Math.max(0, ...this.keys.map((k) => k.generation)) + 1;
      const kid = await this.add(generation, await this.activationFor(now), true);
      // Another rotation took this generation at the same moment: schedule ours after it.
      if (kid === null) continue;
      await this.refresh();
      return this.timeline().find((p) => p.key.kid === kid)!;
    }
  }

  /**
   * When a key published now may sign: once every cached JWKS has expired
   * (under the longest max-age this process or the last serving one promised),
   * and never before a key already scheduled, so exactly one key is active at a time.
   */
  private async activationFor(now: Date): Promise<Date> {
    const recorded = Number(await this.deps.settings.getSetting(JWKS_MAX_AGE_SETTING)) || 0;
    const wait = Math.max(this.deps.jwksMaxAgeSeconds, recorded) * 1000;
    const latest = Math.max(0, ...this.keys.map((k) => Date.parse(k.activatesAt) + 1));
    return new Date(Math.max(now.getTime() + wait, latest));
  }

  private published(): SigningKeyPhase[] {
    return this.timeline().filter((p) => p.state !== 'expired');
  }

  /** Adds a key (a rotation announces it: signing_key.rotated); null when another process took the generation first. */
  private async add(generation: number, activatesAt: Date, announce = false): Promise<string | null> {
    const pair = await generateSigningKeyPair(this.deps.algorithm);
    const key: SigningKeyRecord = {
      kid: pair.kid,
      environment: this.deps.environment,
      generation,
      algorithm: this.deps.algorithm,
      publicJwk: pair.publicJwk,
      privateKeyCiphertext: this.cipher.seal(pair.privateKeyPem, signingKeySealContext(pair.kid)),
      createdAt: this.now().toISOString(),
      activatesAt: activatesAt.toISOString(),
    };
    const inserted = await this.store.insertSigningKey(key, announce ? signingKeyRotated(key) : undefined);
    return inserted ? pair.kid : null;
  }
}

/** Both environments' signing keys: a token is signed, published and checked with its environment's only. */
export type SigningKeyring = Readonly<Record<Environment, SigningKeys>>;

export function createSigningKeyring(deps: Omit<SigningKeysDeps, 'environment'>): SigningKeyring {
  return Object.fromEntries(ENVIRONMENTS.map((environment) => [environment, new SigningKeys({ ...deps, environment })])) as Record<
    Environment,
    SigningKeys
  >;
}

/** Loads every environment's keys (creating each one's first key when it has none, as after the upgrade that split them). */
export async function loadSigningKeyring(ring: SigningKeyring, options: { serving?: boolean } = {}): Promise<void> {
  for (const environment of ENVIRONMENTS) await ring[environment].load(options);
}

export async function refreshSigningKeyring(ring: SigningKeyring): Promise<void> {
  await Promise.all(ENVIRONMENTS.map((environment) => ring[environment].refresh()));
}

/**
 * The environments whose active key is of another algorithm than the one configured for new keys: an upgrade
 * leaves existing keys as they are (tokens already handed out keep verifying), so the change waits for a rotation.
 */
export function keysOfAnotherAlgorithm(
  ring: SigningKeyring,
  configured: SigningAlgorithm,
): { environment: Environment; signing: SigningAlgorithm }[] {
  return ENVIRONMENTS.flatMap((environment) => {
    const signing = ring[environment].activeAlgorithm();
    return signing === undefined || signing === configured ? [] : [{ environment, signing }];
  });
}
