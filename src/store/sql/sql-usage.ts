import type { Environment } from '../../kernel/environment.js';
import type { Granularity, GroupUsage, UsageBucket, UsageRange } from '../../usage/usage.js';
import type { UsageStore } from '../../usage/usage-store.js';
import { mergeUsageBuckets, toGroupUsage, type GroupUsageRow, type UsageBucketRow } from '../rows.js';
import type { SqlDatabase } from './sql-database.js';
import { BYTEWISE, statement, type Dialect, type SqlStatement } from './sql-statement.js';

/** A bucket's start: the hour itself, or its UTC day's midnight (from SQLite's ISO text, from PostgreSQL's timestamptz). */
const BUCKET: Record<Granularity, Record<Dialect, string>> = {
  hour: { sqlite: 'hour_start', postgres: 'hour_start' },
  day: {
    sqlite: "substr(hour_start, 1, 10) || 'T00:00:00.000Z'",
    postgres: "date_trunc('day', hour_start AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'",
  },
};

type Scope = 'Group' | 'Environment';
const RANGE: Record<Scope, string> = {
  Group: 'environment = @environment AND team_id = @teamId AND hour_start >= @from AND hour_start < @to',
  Environment: 'environment = @environment AND hour_start >= @from AND hour_start < @to',
};

/** A range's counted sessions and renewals, and its distinct viewers, per bucket: one statement each per granularity and scope. */
const READS = new Map<string, { counts: SqlStatement<UsageBucketRow>; viewers: SqlStatement<{ start: string; viewers: number }> }>();
for (const granularity of ['hour', 'day'] as const)
  for (const scope of ['Group', 'Environment'] as const)
    READS.set(granularity + scope, {
      counts: statement(
        `usageCounts${granularity}${scope}`,
        (d) => `SELECT ${BUCKET[granularity][d]} AS start, CAST(sum(minted) AS BIGINT) AS sessions, CAST(sum(renewed) AS BIGINT) AS renewals
                FROM session_activity WHERE ${RANGE[scope]} GROUP BY 1 ORDER BY 1`,
      ),
      viewers: statement(
        `usageViewers${granularity}${scope}`,
        (d) => `SELECT ${BUCKET[granularity][d]} AS start, count(DISTINCT viewer_id) AS viewers
                FROM viewer_hours WHERE ${RANGE[scope]} GROUP BY 1 ORDER BY 1`,
      ),
    });

// The top groups first, then their viewers and last mint: the subqueries run for those rows only. Ids compare
// byte by byte on both databases.
const RANK = statement<GroupUsageRow>(
  'rankGroups',
  (d) => `WITH totals AS (
            SELECT team_id, CAST(sum(minted) AS BIGINT) AS sessions, CAST(sum(renewed) AS BIGINT) AS renewals FROM session_activity
            WHERE environment = @environment AND hour_start >= @from AND hour_start < @to GROUP BY team_id
          ), top AS (
            SELECT t.team_id, g.provided_id, g.name, t.sessions, t.renewals
            FROM totals t JOIN user_groups g ON g.team_id = t.team_id AND g.environment = @environment
            WHERE t.sessions + t.renewals > 0
            ORDER BY t.sessions DESC, t.renewals DESC, g.provided_id${BYTEWISE[d]} LIMIT @limit
          )
          SELECT top.*,
            (SELECT count(DISTINCT viewer_id) FROM viewer_hours v
             WHERE v.environment = @environment AND v.team_id = top.team_id AND v.hour_start >= @from AND v.hour_start < @to) AS viewers,
            (SELECT max(last_minted_at) FROM session_activity s WHERE s.environment = @environment AND s.team_id = top.team_id) AS last_session_at
          FROM top ORDER BY sessions DESC, renewals DESC, provided_id${BYTEWISE[d]}`,
);

/** The counted usage and viewers (written by the embed sessions' activity flushes, src/embed-sessions/session-activity.ts). */
export class SqlUsage implements UsageStore {
  constructor(private readonly db: SqlDatabase) {}

  async listUsage(environment: Environment, teamId: number | null, range: UsageRange): Promise<UsageBucket[]> {
    const reads = READS.get(range.granularity + (teamId === null ? 'Environment' : 'Group'))!;
    const values = { environment, teamId, from: range.from, to: range.to };
    const [counts, viewers] = await Promise.all([this.db.all(reads.counts, values), this.db.all(reads.viewers, values)]);
    return mergeUsageBuckets(counts, viewers);
  }

  async rankGroups(environment: Environment, range: UsageRange, limit: number): Promise<GroupUsage[]> {
    return (await this.db.all(RANK, { environment, from: range.from, to: range.to, limit })).map(toGroupUsage);
  }
}
