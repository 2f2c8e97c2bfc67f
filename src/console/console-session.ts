import { createHmac } from 'node:crypto';
import type { Access } from '../api-keys/api-key.js';
import type { Environment } from '../kernel/environment.js';
import { SECRET_PREFIXES, secretFormat } from '../secrets/secret-format.js';

/**
 * The operator console's session id, as the browser's cookie holds it:
 * `ugsc_` then the shared secret shape (secret-format.ts). The store keeps only
 * its SHA-256, so a copy of the database opens no session.
 */
export const consoleSessionIdFormat = secretFormat(SECRET_PREFIXES.consoleSessionId);

/** How long a console session lasts: idle, and at most in all. */
export const CONSOLE_SESSION_LIMITS = {
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 3_600_000,
  /** last_seen_at is written at most this often per session: a page view is a read, not a write. */
  touchEveryMs: 60_000,
} as const;

/** A console session as stored: the hash of its id and the key it was opened with, never the key itself. */
export interface ConsoleSessionRecord {
  idHash: Buffer;
  keyId: string;
  environment: Environment;
  access: Access;
  createdAt: string;
  lastSeenAt: string;
}

/**
 * The session's CSRF secret, derived from the id the browser presents rather
 * than stored: nothing at rest can forge a form token, and a stolen database
 * row can neither open the session nor post in it.
 */
export function csrfSecretOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('ugs console csrf').digest('base64url');
}

/** True when the session is past its idle or its absolute limit at `now` (ms). */
export function consoleSessionExpired(session: Pick<ConsoleSessionRecord, 'createdAt' | 'lastSeenAt'>, now: number): boolean {
  return (
    now - Date.parse(session.lastSeenAt) >= CONSOLE_SESSION_LIMITS.idleMs ||
    now - Date.parse(session.createdAt) >= CONSOLE_SESSION_LIMITS.absoluteMs
  );
}
