import type Database from 'better-sqlite3';
import type { Environment } from '../../kernel/environment.js';
import type { Granularity, GroupUsage, UsageBucket, UsageRange } from '../../usage/usage.js';
import type { UsageStore } from '../../usage/usage-store.js';
import { mergeUsageBuckets, toGroupUsage, type GroupUsageRow, type UsageBucketRow } from '../rows.js';
import type { SqliteHealth } from './sqlite-health.js';

/** A bucket's start from an hour's ISO text: the hour itself, or its UTC day's midnight. */
const BUCKET: Record<Granularity, string> = { hour: 'hour_start', day: "substr(hour_start, 1, 10) || 'T00:00:00.000Z'" };

type Scope = 'group' | 'environment';
const SCOPE: Record<Scope, string> = {
  group: 'environment = @environment AND team_id = @teamId',
  environment: 'environment = @environment',
};

/** The counted usage on SQLite (written by SqliteEmbedSessions.addSessionActivity). */
export class SqliteUsage implements UsageStore {
  private readonly counts = new Map<string, Database.Statement>();
  private readonly viewers = new Map<string, Database.Statement>();
  private readonly rank: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly health: SqliteHealth,
  ) {
    for (const granularity of ['hour', 'day'] as const)
      for (const scope of ['group', 'environment'] as const) {
        const where = `${SCOPE[scope]} AND hour_start >= @from AND hour_start < @to`;
        this.counts.set(
          granularity + scope,
          db.prepare(
            `SELECT ${BUCKET[granularity]} AS start, sum(minted) AS sessions, sum(renewed) AS renewals
             FROM session_activity WHERE ${where} GROUP BY start ORDER BY start`,
          ),
        );
        this.viewers.set(
          granularity + scope,
          db.prepare(
            `SELECT ${BUCKET[granularity]} AS start, count(DISTINCT viewer_id) AS viewers
             FROM viewer_hours WHERE ${where} GROUP BY start ORDER BY start`,
          ),
        );
      }
    // The top groups first, then their viewers and last mint: the subqueries run for those rows only.
    this.rank = db.prepare(
      `WITH totals AS (
         SELECT team_id, sum(minted) AS sessions, sum(renewed) AS renewals FROM session_activity
         WHERE environment = @environment AND hour_start >= @from AND hour_start < @to GROUP BY team_id
       ), top AS (
         SELECT t.team_id, g.provided_id, g.name, t.sessions, t.renewals
         FROM totals t JOIN user_groups g ON g.team_id = t.team_id AND g.environment = @environment
         WHERE t.sessions + t.renewals > 0
         ORDER BY t.sessions DESC, t.renewals DESC, g.provided_id LIMIT @limit
       )
       SELECT top.*,
         (SELECT count(DISTINCT viewer_id) FROM viewer_hours v
          WHERE v.environment = @environment AND v.team_id = top.team_id AND v.hour_start >= @from AND v.hour_start < @to) AS viewers,
         (SELECT max(last_minted_at) FROM session_activity s WHERE s.environment = @environment AND s.team_id = top.team_id) AS last_session_at
       FROM top ORDER BY sessions DESC, renewals DESC, provided_id`,
    );
  }

  async listUsage(environment: Environment, teamId: number | null, range: UsageRange): Promise<UsageBucket[]> {
    this.health.assertUsable();
    const key = range.granularity + (teamId === null ? 'environment' : 'group');
    const values = { environment, teamId, from: range.from, to: range.to };
    return mergeUsageBuckets(
      this.counts.get(key)!.all(values) as UsageBucketRow[],
      this.viewers.get(key)!.all(values) as { start: string; viewers: number }[],
    );
  }

  async rankGroups(environment: Environment, range: UsageRange, limit: number): Promise<GroupUsage[]> {
    this.health.assertUsable();
    return (this.rank.all({ environment, from: range.from, to: range.to, limit }) as GroupUsageRow[]).map(toGroupUsage);
  }
}
