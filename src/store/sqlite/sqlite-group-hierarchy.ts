import type Database from 'better-sqlite3';
import type { Environment } from '../../kernel/environment.js';
import { assertPlacement, HIERARCHY_WALK_LIMIT } from '../../user-groups/user-group-hierarchy.js';
import type { UserGroupRow } from '../rows.js';

/** Every column of a group and its parent's provided id: what every read of a group selects. */
export const GROUP_WITH_PARENT = `g.*, (SELECT p.provided_id FROM user_groups p WHERE p.team_id = g.parent_team_id) AS parent_provided_id`;

/**
 * The recursive reads of the group hierarchy on SQLite. The checks run inside
 * the caller's write transaction: SQLite has one writer at a time (group
 * commit in a process, BEGIN IMMEDIATE across processes), so what they read
 * cannot change before the write commits.
 */
export class SqliteGroupHierarchy {
  private readonly statements;

  constructor(db: Database.Database) {
    const walk = HIERARCHY_WALK_LIMIT;
    this.statements = {
      find: db.prepare<[string, string], { team_id: number }>('SELECT team_id FROM user_groups WHERE environment = ? AND provided_id = ?'),
      chain: db.prepare<[number], { team_id: number }>(
        `WITH RECURSIVE chain (team_id, parent_team_id, depth) AS (
           SELECT team_id, parent_team_id, 0 FROM user_groups WHERE team_id = ?
           UNION ALL
           SELECT g.team_id, g.parent_team_id, c.depth + 1 FROM user_groups g JOIN chain c ON g.team_id = c.parent_team_id WHERE c.depth < ${walk}
         ) SELECT team_id FROM chain`,
      ),
      height: db.prepare<[number], { height: number | null }>(
        `WITH RECURSIVE sub (team_id, level) AS (
           SELECT team_id, 1 FROM user_groups WHERE team_id = ?
           UNION ALL
           SELECT c.team_id, s.level + 1 FROM user_groups c JOIN sub s ON c.parent_team_id = s.team_id WHERE s.level < ${walk}
         ) SELECT max(level) AS height FROM sub`,
      ),
      hasChildren: db.prepare<[number], { one: number }>('SELECT 1 AS one FROM user_groups WHERE parent_team_id = ? LIMIT 1'),
      subtree: db.prepare<[number], UserGroupRow>(
        `WITH RECURSIVE sub (team_id, depth) AS (
           SELECT team_id, 0 FROM user_groups WHERE team_id = ?
           UNION ALL
           SELECT c.team_id, s.depth + 1 FROM user_groups c JOIN sub s ON c.parent_team_id = s.team_id WHERE s.depth < ${walk}
         ) SELECT g.* FROM sub JOIN user_groups g ON g.team_id = sub.team_id ORDER BY g.team_id`,
      ),
      lineage: db.prepare<[string, string], UserGroupRow & { depth: number }>(
        `WITH RECURSIVE chain AS (
           SELECT g.*, 0 AS depth FROM user_groups g WHERE environment = ? AND provided_id = ?
           UNION ALL
           SELECT p.*, c.depth + 1 FROM user_groups p JOIN chain c ON p.team_id = c.parent_team_id WHERE c.depth < ${walk}
         ) SELECT * FROM chain ORDER BY depth DESC`,
      ),
      descendants: db.prepare<[string, string, number, number], UserGroupRow>(
        `WITH RECURSIVE sub (team_id, depth) AS (
           SELECT team_id, 0 FROM user_groups WHERE environment = ? AND provided_id = ?
           UNION ALL
           SELECT c.team_id, s.depth + 1 FROM user_groups c JOIN sub s ON c.parent_team_id = s.team_id WHERE s.depth < ${walk}
         ) SELECT ${GROUP_WITH_PARENT} FROM sub JOIN user_groups g ON g.team_id = sub.team_id
           WHERE sub.depth > 0 AND g.team_id < ? ORDER BY g.team_id DESC LIMIT ?`,
      ),
    };
  }

  /**
   * The parent's team_id after checking that `providedId` (null when not
   * created yet) may go under `parentProvidedId`; throws 400 or 409 otherwise.
   * Call inside the write transaction.
   */
  placeUnder(environment: Environment, group: { teamId: number | null; providedId: string }, parentProvidedId: string): number {
    const parent = this.statements.find.get(environment, parentProvidedId);
    const parentChain = parent ? this.statements.chain.all(parent.team_id).map((row) => row.team_id) : null;
    const subtreeHeight = group.teamId === null ? 1 : (this.statements.height.get(group.teamId)?.height ?? 1);
    assertPlacement({ teamId: group.teamId, providedId: group.providedId, parentProvidedId, parentChain, subtreeHeight });
    return parent!.team_id;
  }

  hasChildren(teamId: number): boolean {
    return this.statements.hasChildren.get(teamId) !== undefined;
  }

  /** The group and all below it, lowest team_id first. */
  subtree(teamId: number): UserGroupRow[] {
    return this.statements.subtree.all(teamId);
  }

  /** The chain from the root down to the group, the group last; empty when it does not exist. */
  lineage(environment: Environment, providedId: string): UserGroupRow[] {
    return this.statements.lineage.all(environment, providedId);
  }

  descendants(environment: Environment, providedId: string, beforeTeamId: number, limit: number): UserGroupRow[] {
    return this.statements.descendants.all(environment, providedId, beforeTeamId, limit);
  }
}
