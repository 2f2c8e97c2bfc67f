import type { Environment } from '../../kernel/environment.js';
import type { CustomerFilter, CustomerStore } from '../../customers/customer-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import { toUserGroupRecord, type UserGroupRow } from '../rows.js';
import { run, type SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

const WITH_PARENT = 'g.*, (SELECT p.provided_id FROM user_groups p WHERE p.team_id = g.parent_team_id) AS parent_provided_id';

/** The filter as a WHERE clause: CAST gives PostgreSQL a parameter's type where only IS NULL would use it. */
const FILTERED = `g.environment = @environment
  AND (CAST(@parent AS TEXT) IS NULL
       OR g.parent_team_id = (SELECT p.team_id FROM user_groups p WHERE p.environment = @environment AND p.provided_id = @parent))
  AND (CAST(@level AS TEXT) IS NULL OR g.hierarchy_level = @level)`;

const PAGE = statement<UserGroupRow>(
  'listCustomersPage',
  `SELECT ${WITH_PARENT} FROM user_groups g WHERE ${FILTERED} ORDER BY g.team_id LIMIT @limit OFFSET @offset`,
);
const COUNT = statement<{ n: number | string }>('countCustomers', `SELECT count(*) AS n FROM user_groups g WHERE ${FILTERED}`);
const BY_TEAM_IDS = statement<UserGroupRow>('findGroupsByTeamIds', {
  sqlite: `SELECT ${WITH_PARENT} FROM user_groups g WHERE g.environment = @environment AND g.team_id IN (SELECT value FROM json_each(@ids))`,
  postgres: `SELECT ${WITH_PARENT} FROM user_groups g
             WHERE g.environment = @environment AND g.team_id IN (SELECT jsonb_array_elements_text(CAST(@ids AS jsonb))::bigint)`,
});
const CHILD_LEVELS = statement<{ hierarchy_level: string | null }>(
  'childLevels',
  'SELECT DISTINCT hierarchy_level FROM user_groups WHERE environment = @environment AND parent_team_id = @teamId',
);

/** The Customer API's reads, written once for both databases. */
export class SqlCustomers implements CustomerStore {
  constructor(private readonly db: SqlDatabase) {}

  listCustomers(
    environment: Environment,
    filter: CustomerFilter,
    page: { offset: number; limit: number },
  ): Promise<{ groups: UserGroupRecord[]; total: number }> {
    const parameters = { environment, parent: filter.parentId ?? null, level: filter.hierarchyLevel ?? null, ...page };
    // One transaction, so the total and the page agree.
    return this.db.transaction(function* () {
      const rows = yield* run(PAGE, parameters);
      const [count] = yield* run(COUNT, parameters);
      return { groups: rows.map(toUserGroupRecord), total: Number(count!.n) };
    });
  }

  async findGroupsByTeamIds(environment: Environment, teamIds: readonly number[]): Promise<UserGroupRecord[]> {
    if (teamIds.length === 0) return [];
    return (await this.db.all(BY_TEAM_IDS, { environment, ids: JSON.stringify(teamIds) })).map(toUserGroupRecord);
  }

  async childLevels(environment: Environment, teamId: number): Promise<(string | null)[]> {
    return (await this.db.all(CHILD_LEVELS, { environment, teamId })).map((row) => row.hierarchy_level);
  }
}
