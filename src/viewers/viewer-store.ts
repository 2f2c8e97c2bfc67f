import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { ViewerActivity, ViewerPosition } from './viewer.js';

/**
 * The storage ViewerService needs: a port, implemented in src/store with the
 * embed sessions (a viewer's activity comes in the sessions' counted batches,
 * and its revocation is an entry of their feed), held to it by the store
 * conformance suite.
 */
export interface ViewerStore {
  /**
   * Ends a viewer's sessions: appends `consequences` in one transaction, as
   * ViewerService built them (embed-session-consequences.ts: the viewer's feed
   * entry, audit record and event, which say whom and when); also forgets a
   * few rows expired at `revokedAt`.
   */
  revokeViewerSessions(revokedAt: string, consequences: WriteConsequences): Promise<void>;
  /** When the viewer's sessions were last ended, among the entries not past their expiry at `now`; null when never. */
  latestViewerRevocation(environment: Environment, viewerId: string, now: string): Promise<string | null>;
  /** A group's viewers after `after` (null: from the start), most recently seen first, then by id. */
  listViewers(environment: Environment, teamId: number, after: ViewerPosition | null, limit: number): Promise<ViewerActivity[]>;
}
