import type { Environment } from '../kernel/environment.js';
import type { GroupUsage, UsageBucket, UsageRange } from './usage.js';

/**
 * The storage UsageService needs: a port over the counts the embed sessions'
 * flushes write (src/embed-sessions/session-activity.ts), implemented in
 * src/store for each database and held to it by the store conformance suite.
 */
export interface UsageStore {
  /**
   * One group's buckets (`teamId`), or the whole environment's (null), over the
   * range: only those with something counted, oldest first. `viewers` counts
   * each viewer id once per bucket, however many processes saw it.
   */
  listUsage(environment: Environment, teamId: number | null, range: UsageRange): Promise<UsageBucket[]>;
  /**
   * The environment's groups that exist now and had sessions minted or renewed
   * in the range, most sessions first (then most renewals, then by
   * user_group_id): at most `limit`, with their totals over the range.
   */
  rankGroups(environment: Environment, range: UsageRange, limit: number): Promise<GroupUsage[]>;
}
