import type { RunStatement } from './postgres-embed-sessions.js';
import type { Environment } from '../../kernel/environment.js';
import type { Granularity, GroupUsage, UsageBucket, UsageRange } from '../../usage/usage.js';
import type { UsageStore } from '../../usage/usage-store.js';
import { mergeUsageBuckets, toGroupUsage, type GroupUsageRow, type UsageBucketRow } from '../rows.js';

/** A bucket's start: the hour itself, or its UTC day's midnight. */
const BUCKET: Record<Granularity, string> = {
  hour: 'hour_start',
  day: "date_trunc('day', hour_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
};

/** $1 environment, $2 from, $3 to, and for one group $4 its team_id. */
const where = (group: boolean) => `environment = $1 AND hour_start >= $2 AND hour_start < $3${group ? ' AND team_id = $4' : ''}`;

const countsSql = (granularity: Granularity, group: boolean) =>
  `SELECT ${BUCKET[granularity]} AS start, sum(minted)::bigint AS sessions, sum(renewed)::bigint AS renewals
   FROM session_activity WHERE ${where(group)} GROUP BY 1 ORDER BY 1`;

const viewersSql = (granularity: Granularity, group: boolean) =>
  `SELECT ${BUCKET[granularity]} AS start, count(DISTINCT viewer_id) AS viewers
   FROM viewer_hours WHERE ${where(group)} GROUP BY 1 ORDER BY 1`;

// The top groups first, then their viewers and last mint: the subqueries run for those rows only. Ids compare
// byte by byte (COLLATE "C"), as SQLite compares them.
const RANK_SQL = `WITH totals AS (
                    SELECT team_id, sum(minted)::bigint AS sessions, sum(renewed)::bigint AS renewals FROM session_activity
                    WHERE environment = $1 AND hour_start >= $2 AND hour_start < $3 GROUP BY team_id
                  ), top AS (
                    SELECT t.team_id, g.provided_id, g.name, t.sessions, t.renewals
                    FROM totals t JOIN user_groups g ON g.team_id = t.team_id AND g.environment = $1
                    WHERE t.sessions + t.renewals > 0
                    ORDER BY t.sessions DESC, t.renewals DESC, g.provided_id COLLATE "C" LIMIT $4
                  )
                  SELECT top.*,
                    (SELECT count(DISTINCT viewer_id) FROM viewer_hours v
                     WHERE v.environment = $1 AND v.team_id = top.team_id AND v.hour_start >= $2 AND v.hour_start < $3) AS viewers,
                    (SELECT max(last_minted_at) FROM session_activity s WHERE s.environment = $1 AND s.team_id = top.team_id) AS last_session_at
                  FROM top ORDER BY sessions DESC, renewals DESC, provided_id COLLATE "C"`;

/** The counted usage on PostgreSQL (written by PostgresEmbedSessions.addSessionActivity). */
export class PostgresUsage implements UsageStore {
  constructor(private readonly run: RunStatement) {}

  async listUsage(environment: Environment, teamId: number | null, range: UsageRange): Promise<UsageBucket[]> {
    const group = teamId !== null;
    const values = [environment, range.from, range.to, ...(group ? [teamId] : [])];
    const name = `${range.granularity}${group ? 'Group' : 'Environment'}`;
    const [counts, viewers] = await Promise.all([
      this.run<UsageBucketRow>(`usageCounts${name}`, countsSql(range.granularity, group), values),
      this.run<{ start: string; viewers: number }>(`usageViewers${name}`, viewersSql(range.granularity, group), values),
    ]);
    return mergeUsageBuckets(counts.rows, viewers.rows);
  }

  async rankGroups(environment: Environment, range: UsageRange, limit: number): Promise<GroupUsage[]> {
    const { rows } = await this.run<GroupUsageRow>('rankGroups', RANK_SQL, [environment, range.from, range.to, limit]);
    return rows.map(toGroupUsage);
  }
}
