import type { ApiKeyService } from '../api-keys/api-key-service.js';
import { ACCESS_SCOPE, may, type Principal } from '../kernel/principal.js';
import {
  CONSOLE_SESSION_LIMITS,
  consoleSessionExpired,
  consoleSessionIdFormat,
  csrfSecretOf,
  type ConsoleSessionRecord,
} from './console-session.js';
import type { ConsoleSessionStore } from './console-session-store.js';
import { forbidden } from '../kernel/errors.js';
import { hashSecret } from '../secrets/secret-format.js';

export interface ConsoleSessionServiceDeps {
  store: ConsoleSessionStore;
  /** Sign-in authenticates the key exactly as the API does (same service, same cache). */
  apiKeys: Pick<ApiKeyService, 'authenticate'>;
  now?: () => Date;
}

/** An open console session, as a page needs it. */
export interface ConsoleSession {
  principal: Principal;
  /** For the form tokens (csrfSecretOf); never stored. */
  csrfSecret: string;
  createdAt: string;
}

/**
 * Operator console sessions: opened with an API key, held by the browser as
 * a random id whose hash alone is stored. A session has exactly its key's
 * rights and ends when idle 30 minutes, 12 hours after sign-in, at sign out,
 * or at once when its key is revoked (the store's lookup checks the key).
 */
export class ConsoleSessionService {
  private readonly store: ConsoleSessionStore;
  private readonly apiKeys: ConsoleSessionServiceDeps['apiKeys'];
  /** Settable so tests can move time past the idle and absolute limits of a running server. */
  now: () => Date;

  constructor(deps: ConsoleSessionServiceDeps) {
    this.store = deps.store;
    this.apiKeys = deps.apiKeys;
    this.now = deps.now ?? (() => new Date());
  }

  /** Authenticates the key (throws `unauthenticated` as the API would) and opens a session; returns the id for the cookie. */
  async signIn(presentedKey: string): Promise<{ sessionId: string; session: ConsoleSession }> {
    const principal = await this.apiKeys.authenticate(presentedKey);
    if (!may(principal, 'read')) {
      const article = principal.access === 'embed' ? 'an' : 'a';
      throw forbidden(
        `This API key is ${article} ${principal.access} key: ${ACCESS_SCOPE[principal.access]}; sign in with a read-write or read-only key.`,
      );
    }
    const sessionId = consoleSessionIdFormat.generate();
    const now = this.now();
    const at = now.toISOString();
    await this.store.insertConsoleSession(
      {
        idHash: hashSecret(sessionId),
        keyId: principal.keyId,
        environment: principal.environment,
        access: principal.access,
        createdAt: at,
        lastSeenAt: at,
      },
      {
        lastSeen: new Date(now.getTime() - CONSOLE_SESSION_LIMITS.idleMs).toISOString(),
        created: new Date(now.getTime() - CONSOLE_SESSION_LIMITS.absoluteMs).toISOString(),
      },
    );
    return { sessionId, session: { principal, csrfSecret: csrfSecretOf(sessionId), createdAt: at } };
  }

  /**
   * The session a cookie names, or null when it is unknown, expired, signed
   * out or its key revoked. One store read; a write at most once a minute.
   */
  async resume(sessionId: string | undefined): Promise<ConsoleSession | null> {
    if (sessionId === undefined || !consoleSessionIdFormat.isWellFormed(sessionId)) return null;
    const idHash = hashSecret(sessionId);
    const record = await this.store.findConsoleSession(idHash);
    if (!record) return null;
    const now = this.now();
    if (consoleSessionExpired(record, now.getTime())) {
      await this.store.deleteConsoleSession(idHash);
      return null;
    }
    if (now.getTime() - Date.parse(record.lastSeenAt) >= CONSOLE_SESSION_LIMITS.touchEveryMs) {
      await this.store.touchConsoleSession(idHash, now.toISOString());
    }
    return { principal: principalOf(record), csrfSecret: csrfSecretOf(sessionId), createdAt: record.createdAt };
  }

  /** Ends the session at once; an unknown or malformed id is not an error. */
  async signOut(sessionId: string | undefined): Promise<void> {
    if (sessionId === undefined || !consoleSessionIdFormat.isWellFormed(sessionId)) return;
    await this.store.deleteConsoleSession(hashSecret(sessionId));
  }
}

function principalOf(record: ConsoleSessionRecord): Principal {
  return { keyId: record.keyId, environment: record.environment, access: record.access };
}
