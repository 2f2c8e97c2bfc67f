import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { ENVIRONMENTS, type Environment } from '../kernel/environment.js';
import type { SettingsStore } from '../kernel/settings-store.js';
import { secureRandomBytes } from '../secrets/random-pool.js';

/** The store setting holding the key: made once by whichever process needs it first, the same for every replica. */
export const SESSION_ID_KEY_SETTING = 'session_id_key';

const PREFIX = 'es_';
const VERSION = 1;
/** version, team id (48 bits), expiry (seconds, 32 bits), random, tag. */
const TEAM_AT = 1;
const EXPIRY_AT = 7;
const RANDOM_AT = 11;
const TAG_AT = 20;
const LENGTH = 36;
/** 128 bits: a made-up id passes once in 2^128 tries. */
const TAG_BYTES = LENGTH - TAG_AT;
/** The ids minted before they carried their own expiry (es_ + 16 random bytes): known only from a stored row. */
const STORED_ID = /^es_[A-Za-z0-9_-]{22}$/;
const SEALED_ID = /^es_[A-Za-z0-9_-]{48}$/;

/** What a session id says about its session, once its tag is checked. */
export interface SessionIdFacts {
  teamId: number;
  /** Seconds since the epoch: the session's `exp`. */
  expiresAt: number;
}

/** What an id presented by a caller turns out to be. */
export type OpenedSessionId =
  | ({ kind: 'sealed' } & SessionIdFacts)
  /** An id of the earlier form: the store's row says whether it exists. */
  | { kind: 'stored' }
  /** Malformed, made up, or another environment's. */
  | { kind: 'unknown' };

/**
 * Session ids the service can check without storage, so minting a session
 * writes nothing: an id carries its group's team id and its expiry, and an
 * HMAC-SHA256 tag under a key of the environment. Only a session ended early
 * is stored (with its revocation), so "unknown in this environment" is
 * answered from the tag, and "ended already" from the expiry or that row.
 * The id is no credential (the signed token is): the key only keeps callers
 * from making ids up, and sits in the store's settings like the position seal's.
 */
export class SessionIds {
  private keys: Promise<Record<Environment, KeyObject>> | undefined;

  constructor(private readonly settings: Pick<SettingsStore, 'putSettingIfAbsent'>) {}

  /** Each environment's key, read (or made) once per process. */
  async forEnvironment(environment: Environment): Promise<EnvironmentSessionIds> {
    this.keys ??= this.settings.putSettingIfAbsent(SESSION_ID_KEY_SETTING, randomBytes(32).toString('base64url')).then((value) => {
      const master = Buffer.from(value, 'base64url');
      return Object.fromEntries(
        ENVIRONMENTS.map((env) => [env, createSecretKey(createHmac('sha256', master).update(`ugs session id\u0000${env}`).digest())]),
      ) as Record<Environment, KeyObject>;
    });
    // A failed read is tried again by the next request, not remembered.
    const keys = await this.keys.catch((error: unknown) => {
      this.keys = undefined;
      throw error;
    });
    return new EnvironmentSessionIds(keys[environment]);
  }
}

export class EnvironmentSessionIds {
  /** A KeyObject, not the bytes: node:crypto checks a Buffer key's type by catching an exception, ~10 µs per HMAC. */
  constructor(private readonly key: KeyObject) {}

  mint(facts: SessionIdFacts): string {
    const id = Buffer.allocUnsafe(LENGTH);
    id[0] = VERSION;
    id.writeUIntBE(facts.teamId, TEAM_AT, EXPIRY_AT - TEAM_AT);
    id.writeUInt32BE(facts.expiresAt, EXPIRY_AT);
    secureRandomBytes(TAG_AT - RANDOM_AT).copy(id, RANDOM_AT);
    this.tag(id).copy(id, TAG_AT);
    return PREFIX + id.toString('base64url');
  }

  open(sessionId: string): OpenedSessionId {
    if (STORED_ID.test(sessionId)) return { kind: 'stored' };
    if (!SEALED_ID.test(sessionId)) return { kind: 'unknown' };
    const id = Buffer.from(sessionId.slice(PREFIX.length), 'base64url');
    if (id.length !== LENGTH || id[0] !== VERSION || !timingSafeEqual(this.tag(id), id.subarray(TAG_AT))) return { kind: 'unknown' };
    return { kind: 'sealed', teamId: id.readUIntBE(TEAM_AT, EXPIRY_AT - TEAM_AT), expiresAt: id.readUInt32BE(EXPIRY_AT) };
  }

  private tag(id: Buffer): Buffer {
    return createHmac('sha256', this.key).update(id.subarray(0, TAG_AT)).digest().subarray(0, TAG_BYTES);
  }
}
