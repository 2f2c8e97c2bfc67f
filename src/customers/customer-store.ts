import type { Environment } from '../kernel/environment.js';
import type { UserGroupRecord } from '../user-groups/user-group.js';

/** Which groups a Customer API list keeps: children of one parent, groups at one hierarchy level, or both. */
export interface CustomerFilter {
  parentId?: string;
  hierarchyLevel?: string;
}

/**
 * The reads the Customer API needs beside the user-group store's: numbered pages with a total (its v2 list pages by
 * number, oldest first), ancestors of a page's groups by team_id, and the levels of a group's children. A port,
 * implemented once for both databases (src/store/sql/sql-customers.ts).
 */
export interface CustomerStore {
  /** The page (`offset`, `limit`, oldest first) and the total of the environment's groups the filter keeps, from one snapshot. */
  listCustomers(
    environment: Environment,
    filter: CustomerFilter,
    page: { offset: number; limit: number },
  ): Promise<{ groups: UserGroupRecord[]; total: number }>;
  /** The environment's groups with these team_ids (any order; unknown ids are left out). */
  findGroupsByTeamIds(environment: Environment, teamIds: readonly number[]): Promise<UserGroupRecord[]>;
  /** The distinct hierarchy levels (null: none given) of the group's children. */
  childLevels(environment: Environment, teamId: number): Promise<(string | null)[]>;
}
