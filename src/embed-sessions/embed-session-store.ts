import type { EmbedSessionRecord } from './embed-session.js';
import type { EmbedRevocation } from '../consequences/embed-revocation.js';
import type { SessionActivityBatch, SessionActivityCount, SessionActivitySink } from './session-activity.js';
import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { ViewerStore } from '../viewers/viewer-store.js';

/**
 * The storage EmbedSessionService needs: a port, implemented in src/store for
 * each database and held to it by the store conformance suite. Minting writes
 * nothing here (session ids check themselves, src/embed-sessions/session-id.ts):
 * a session is stored only when it is ended early. Rotating or deleting a
 * group appends its revocation in the same transaction (see UserGroupStore).
 */
export interface EmbedSessionStore extends SessionActivitySink, ViewerStore {
  /**
   * A stored session: one ended early, or one minted before session ids
   * checked themselves (those were stored at mint).
   */
  findEmbedSession(environment: Environment, sessionId: string): Promise<EmbedSessionRecord | null>;
  /**
   * Ends a session: stores it as revoked at `revokedAt` and appends
   * `consequences` (built by the service, embed-session-consequences.ts: its
   * feed entry, audit record and event), unless it is stored as revoked
   * already (then nothing is written and the answer is false). Also forgets a
   * few sessions and revocations past their expiry, so neither table grows
   * without bound.
   */
  revokeEmbedSession(session: EmbedSessionRecord, revokedAt: string, consequences: WriteConsequences): Promise<boolean>;
  /** The environment's revocations after `afterSequence`, oldest first, not yet past their expiry at `now`. */
  listEmbedRevocations(environment: Environment, afterSequence: number, limit: number, now: string): Promise<EmbedRevocation[]>;
  /**
   * Adds a batch of counts to the stored sums, once per batch id however
   * often it is sent (its viewer-hours are a set: present once however often
   * added); also forgets a few expired sessions and revocations, and, when
   * `forgetBefore` is given, a bounded number of counted hours before it.
   */
  addSessionActivity(batch: SessionActivityBatch, now: string, forgetBefore?: string): Promise<void>;
  /** A group's stored sums for the hours from `fromHour` (inclusive) to `toHour` (exclusive), oldest first. */
  listSessionActivity(environment: Environment, teamId: number, fromHour: string, toHour: string): Promise<SessionActivityCount[]>;
}
