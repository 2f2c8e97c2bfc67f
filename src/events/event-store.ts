import type { Environment } from '../kernel/environment.js';
import type { EventRecord } from './event.js';

/**
 * The outbox as readers see it: a port, implemented in src/store for each
 * database. Events are written by the writes themselves, in the transaction of
 * the change (beside its audit record), never through this port.
 */
export interface EventStore {
  /**
   * The environment's events with a sequence above `afterSequence`, in commit
   * order: a reader that resumes from the last sequence it saw misses none.
   * Events older than `notBefore` (the retention) are not listed, and a few
   * of them are deleted on the way.
   */
  listEvents(environment: Environment, afterSequence: number, limit: number, notBefore: string): Promise<EventRecord[]>;
  /**
   * The environment's latest events, newest first, not older than `notBefore`;
   * only those about the group `userGroupId` when given. For the console's
   * activity page, not for pollers (they resume with listEvents).
   */
  listRecentEvents(environment: Environment, limit: number, notBefore: string, userGroupId?: string): Promise<EventRecord[]>;
}
