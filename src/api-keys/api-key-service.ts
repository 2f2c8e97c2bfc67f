import type { ApiKeyStore } from './api-key-store.js';
import { apiKeyFormat, newApiKeyId, type Access, type ApiKeyRecord } from './api-key.js';
import { type Principal } from '../kernel/principal.js';
import type { Environment } from '../kernel/environment.js';
import { ServiceError, unauthenticated } from '../kernel/errors.js';
import { NO_REVOCATION_SIGNAL, type KeyRevocationSignal } from './key-revocation-signal.js';
import { hashSecret, sameHash } from '../secrets/secret-format.js';
import { apiKeyCreated, apiKeyRevoked } from './api-key-consequences.js';

export interface CreatedApiKey {
  record: ApiKeyRecord;
  /** The key itself: shown once, never stored. */
  key: string;
}

export interface ApiKeyServiceDeps {
  store: ApiKeyStore;
  now?: () => Date;
  /** How stale `last_used_at` may be; bounds the writes that recording use costs. */
  lastUsedResolutionMs?: number;
  /**
   * How long a successful key lookup may be reused without asking the store;
   * 0 asks the store on every request. A revocation ends the reuse at once
   * through `revocations`; the TTL bounds it when that signal is itself stale.
   */
  cacheTtlMs: number;
  /** Tells when a key was revoked anywhere; without it nothing is cached. */
  revocations?: KeyRevocationSignal;
}

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
  /** The revocation epoch read before the lookup: the entry is good only while the epoch still reads this. */
  epoch: number;
}

const CACHE_MAX_KEYS = 10_000;

/** Creating, listing, revoking and checking API keys. */
export class ApiKeyService {
  private readonly store: ApiKeyStore;
  private readonly now: () => Date;
  private readonly lastUsedResolutionMs: number;
  /** When this process last recorded each key's use, so a busy key costs one write a minute, not one a request. */
  private readonly lastRecordedUse = new Map<string, number>();
  private readonly cacheTtlMs: number;
  private readonly revocations: KeyRevocationSignal;
  /**
   * Valid keys recently seen, by the key as presented; never revoked or unknown ones, so a new key works
   * at once. Keyed by the key itself, a request with a cached key costs a map lookup instead of the
   * format check, the CRC and a SHA-256 (about 2.5 µs): the key is in memory while its request is served
   * anyway, and an entry leaves once it has expired and another key is looked up in the store.
   */
  private readonly cache = new Map<string, CacheEntry>();

  constructor(deps: ApiKeyServiceDeps) {
    this.store = deps.store;
    this.now = deps.now ?? (() => new Date());
    this.lastUsedResolutionMs = deps.lastUsedResolutionMs ?? 60_000;
    this.cacheTtlMs = deps.cacheTtlMs;
    this.revocations = deps.revocations ?? NO_REVOCATION_SIGNAL;
  }

  async create(options: { environment: Environment; access: Access; name?: string | null }): Promise<CreatedApiKey> {
    const key = apiKeyFormat.generate();
    const record: ApiKeyRecord = {
      id: newApiKeyId(),
      name: options.name ?? null,
      environment: options.environment,
      access: options.access,
      keyHash: hashSecret(key),
      createdAt: this.now().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.store.insertApiKey(
      record,
      apiKeyCreated(record, { keyId: record.id, fields: ['environment', 'access', ...(record.name === null ? [] : ['name'])] }),
    );
    return { record, key };
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.store.listApiKeys();
  }

  /** False when no key has this id. Revoking twice keeps the first time. Takes effect at once, in every process (see KeyRevocationSignal).
   * */
  async revoke(id: string): Promise<boolean> {
    const key = await this.store.findApiKey(id);
    if (!key) return false;
    const at = this.now().toISOString();
    await this.store.revokeApiKey(id, at, apiKeyRevoked(key.environment, id, at, { keyId: id, fields: ['revoked_at'] }));
    for (const [cached, entry] of this.cache) if (entry.principal.keyId === id) this.cache.delete(cached);
    return true;
  }

  /**
   * Revokes the key named by its id, or by the key itself (found by its hash,
   * so a key pasted where an id was expected still works). Returns the key's
   * id, or null when nothing matches.
   */
  async revokeByIdOrKey(given: string): Promise<string | null> {
    let id = given;
    if (given.startsWith(apiKeyFormat.prefix)) {
      const record = apiKeyFormat.isWellFormed(given) ? await this.recordOf(hashSecret(given)) : null;
      if (!record) return null;
      id = record.id;
    }
    return (await this.revoke(id)) ? id : null;
  }

  /**
   * The principal for a presented key. Malformed keys are refused before any
   * store lookup; the stored hash is compared again in constant time.
   */
  async authenticate(presentedKey: string): Promise<Principal> {
    const now = this.now().getTime();
    // Only keys that passed every check below are cached: a hit needs none of them again.
    const cached = this.unexpired(presentedKey, now);
    if (cached) {
      // The common case on the hot path: no store call, and no await unless a use is due to be recorded.
      if (this.useToRecord(cached.keyId, now)) await this.noteUse(cached.keyId);
      return cached;
    }
    if (!apiKeyFormat.isWellFormed(presentedKey)) {
      throw unauthenticated('The API key is malformed: expected "Authorization: Token ugsk_..." with a key from `ugs keys create`.');
    }
    const hash = hashSecret(presentedKey);
    this.cache.delete(presentedKey);
    this.dropExpired(now);
    // Read before the lookup: a revocation committed after it, even during the lookup, moves the epoch past this.
    const epoch = this.revocations.epoch();
    const record = await this.recordOf(hash);
    // One answer for both, so a caller cannot tell a revoked key from one never issued.
    if (!record || record.revokedAt !== null) throw unrecognisedKey();
    const principal: Principal = { keyId: record.id, environment: record.environment, access: record.access };
    if (this.cacheTtlMs > 0 && epoch !== undefined) {
      if (this.cache.size >= CACHE_MAX_KEYS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(presentedKey, { principal, expiresAt: now + this.cacheTtlMs, epoch });
    }
    await this.noteUse(record.id);
    return principal;
  }

  /**
   * The principal of a presented key that is cached, current and whose use is not due to be recorded: the hot path's
   * answer with no promise to make; undefined sends the caller to `authenticate`, which decides everything else.
   */
  cachedPrincipal(presentedKey: string): Principal | undefined {
    const now = this.now().getTime();
    const cached = this.unexpired(presentedKey, now);
    return cached && !this.useToRecord(cached.keyId, now) ? cached : undefined;
  }

  /** The stored key with this hash, compared again in constant time; null when there is none. */
  private async recordOf(hash: Buffer): Promise<ApiKeyRecord | null> {
    const record = await this.store.findApiKeyByHash(hash);
    return record && sameHash(record.keyHash, hash) ? record : null;
  }

  private async noteUse(id: string): Promise<void> {
    const now = this.now();
    if (!this.useToRecord(id, now.getTime())) return;
    this.lastRecordedUse.set(id, now.getTime());
    try {
      await this.store.recordApiKeyUse(id, now.toISOString());
    } catch (error) {
      // Bookkeeping, not access: a store that cannot write now (disk full, read-only) still serves reads with a valid key.
      if (!(error instanceof ServiceError && error.code === 'unavailable')) throw error;
    }
  }

  /** Entries past their TTL, oldest first (entries are added in expiry order), so no key stays cached long after its last use. */
  private dropExpired(now: number): void {
    for (const [key, entry] of this.cache) {
      if (entry.expiresAt > now) return;
      this.cache.delete(key);
    }
  }

  /** The cached principal for a presented key, while its entry is within the TTL and no key has been revoked since. */
  private unexpired(presentedKey: string, now: number): Principal | undefined {
    const entry = this.cache.get(presentedKey);
    // The epoch is asked last: a key that is not cached costs no check.
    return entry && entry.expiresAt > now && entry.epoch === this.revocations.epoch() ? entry.principal : undefined;
  }

  private useToRecord(id: string, now: number): boolean {
    const last = this.lastRecordedUse.get(id);
    return last === undefined || now - last >= this.lastUsedResolutionMs;
  }
}

function unrecognisedKey() {
  return unauthenticated('The API key is not recognised: it was never issued or has been revoked. Create a key with `ugs keys create`.');
}
