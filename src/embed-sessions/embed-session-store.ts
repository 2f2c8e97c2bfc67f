import type { AuditContext } from '../audit/audit.js';
import type { EmbedRevocation, EmbedSessionRecord } from './embed-session.js';
import type { Environment } from '../kernel/environment.js';

/**
 * The storage EmbedSessionService needs: a port, implemented in src/store for
 * each database and held to it by the store conformance suite. Rotating or
 * deleting a group appends its revocation in the same transaction (see
 * UserGroupStore); here are the sessions themselves and the feed.
 */
export interface EmbedSessionStore {
  /** Records a minted session; also forgets a few sessions and revocations past their expiry, so neither table grows without bound. */
  insertEmbedSession(session: EmbedSessionRecord, now: string): Promise<void>;
  findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null>;
  /**
   * Ends a session: sets its revokedAt and appends its revocation (audited),
   * unless it was revoked already (then nothing is written). Null when the
   * environment has no such session.
   */
  revokeEmbedSession(
    environment: Environment,
    sessionId: string,
    revokedAt: string,
    audit: AuditContext,
  ): Promise<EmbedSessionRecord | null>;
  /** The environment's revocations after `afterSequence`, oldest first, not yet past their expiry at `now`. */
  listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]>;
}
