import { hash } from 'node:crypto';
import { CLOCK_TOLERANCE_SECONDS, MAX_SESSION_LIFETIME_SECONDS } from '../kernel/embed-tokens.js';
import type { Environment } from '../kernel/environment.js';

/**
 * The revocation entry a write leaves: what ends embed sessions early, appended to the environment's revocation
 * feed in the write's own transaction (write-consequences.ts). Writes of several concepts leave one (a session or
 * a viewer's sessions ended, a group's token rotated, a group deleted), so it is shaped here, below them all.
 */

export const REVOCATION_REASONS = [
  'session_revoked',
  'token_rotated',
  'user_group_deleted',
  'viewer_revoked',
  'user_group_renamed',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/**
 * One entry of the revocation feed: one session (`sessionId`), every session
 * of a group minted under one of its tokens (`tokenVersion`), or every
 * session of a viewer minted up to the second of `revokedAt` (`viewerId`; no
 * group: the viewer's sessions end in every group).
 */
export interface EmbedRevocation {
  /** Position in the environment's feed; only grows. */
  sequence: number;
  environment: Environment;
  sessionId: string | null;
  /** The group, except for a viewer's entry. */
  providedId: string | null;
  tokenVersion: string | null;
  viewerId: string | null;
  reason: RevocationReason;
  revokedAt: string;
  /** After this no token the entry covers can still be live: the store may forget it. */
  expiresAt: string;
}

export type NewEmbedRevocation = Omit<EmbedRevocation, 'sequence'>;

/**
 * A non-secret name for the group's current token, carried by its sessions
 * (`tv`): it changes with every rotation, and a group deleted then created
 * again gets a new one, so a revocation names exactly the sessions it ends.
 */
export function tokenVersionOf(tokenHash: Buffer): string {
  return hash('sha256', Buffer.concat([Buffer.from('tv\u0000'), tokenHash]), 'base64url').slice(0, 16);
}

/** The entry that ends every session minted under the group's token as `record` holds it. */
export function groupRevocation(
  record: { environment: Environment; providedId: string; tokenHash: Buffer },
  reason: Exclude<RevocationReason, 'session_revoked'>,
  at: string,
): NewEmbedRevocation {
  return {
    environment: record.environment,
    sessionId: null,
    providedId: record.providedId,
    tokenVersion: tokenVersionOf(record.tokenHash),
    viewerId: null,
    reason,
    revokedAt: at,
    expiresAt: secondsAfter(at, MAX_SESSION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS),
  };
}

/** The entry that ends one session (an EmbedSessionRecord), kept until its token has expired on every verifier's clock. */
export function sessionRevocation(
  session: { environment: Environment; sessionId: string; providedId: string; expiresAt: string },
  at: string,
): NewEmbedRevocation {
  return {
    environment: session.environment,
    sessionId: session.sessionId,
    providedId: session.providedId,
    tokenVersion: null,
    viewerId: null,
    reason: 'session_revoked',
    revokedAt: at,
    expiresAt: secondsAfter(session.expiresAt, CLOCK_TOLERANCE_SECONDS),
  };
}

/**
 * The entry that ends every session of a viewer minted up to the second of
 * `at` (a token's `iat` is in whole seconds): kept as long as such a session
 * can live.
 */
export function viewerRevocation(environment: Environment, viewerId: string, at: string): NewEmbedRevocation {
  return {
    environment,
    sessionId: null,
    providedId: null,
    tokenVersion: null,
    viewerId,
    reason: 'viewer_revoked',
    revokedAt: at,
    expiresAt: secondsAfter(at, MAX_SESSION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS),
  };
}

export function secondsAfter(iso: string, seconds: number): string {
  return new Date(Date.parse(iso) + seconds * 1000).toISOString();
}
