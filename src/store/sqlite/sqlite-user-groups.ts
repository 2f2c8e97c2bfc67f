import type Database from 'better-sqlite3';
import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { TokenResealStore } from '../../user-groups/user-group-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import type {
  GroupsDeletedConsequences,
  GroupWriteConsequences,
  NewUserGroup,
  TokenReplacement,
  UserGroupChanges,
  UserGroupLineage,
  UserGroupStore,
} from '../../user-groups/user-group-store.js';
import { customerChanges, groupKey, insertedGroupRow, newGroupColumns } from '../group-columns.js';
import { jsonOrNull } from '../json-column.js';
import { perTurnBatch, type PerTurnBatch } from '../per-turn-batch.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import type { SqliteHealth } from './sqlite-health.js';
import { UnchangedReadCache } from './unchanged-read-cache.js';
import { toUserGroupRecord, type UserGroupRow } from '../rows.js';
import { GROUP_WITH_PARENT, SqliteGroupHierarchy } from './sqlite-group-hierarchy.js';
import { hasChildrenConflict, renameTaken } from '../../user-groups/user-group-hierarchy.js';
import { unknownGroupTags } from '../../group-tags/group-tag.js';

/** Most groups kept by the lookup cache (about 1 KiB each with small properties). */
const CACHED_GROUPS = 10_000;

/**
 * The SQLite `user_groups` table. Writes go through group commit (one
 * transaction and one fsync per burst), each appending the consequences its
 * caller hands it, built once the write knows the team_id it wrote (see
 * GroupWriteConsequences); lookups through per-turn batches
 * (one read transaction per burst), answered by id from the groups read since
 * the last write of any process (UnchangedReadCache), which makes the hit and
 * the mint cost no row read while nothing changes.
 */
export class SqliteUserGroups implements UserGroupStore, TokenResealStore {
  private readonly statements;
  private readonly hierarchy: SqliteGroupHierarchy;
  private readonly groupById: PerTurnBatch<[Environment, string], UserGroupRecord | null>;
  private readonly groupByTokenHash: PerTurnBatch<[Environment, Buffer], UserGroupRecord | null>;
  private readonly cachedById: UnchangedReadCache<UserGroupRecord>;

  constructor(
    db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly groupCommit: GroupCommit,
    private readonly appender: SqliteConsequences,
  ) {
    this.hierarchy = new SqliteGroupHierarchy(db);
    this.statements = {
      // The parent's provided id comes with the group: a root's costs one index probe that finds nothing.
      find: db.prepare<[string, string], UserGroupRow>(
        `SELECT ${GROUP_WITH_PARENT} FROM user_groups g WHERE environment = ? AND provided_id = ?`,
      ),
      findByTeamId: db.prepare<[string, number], UserGroupRow>(
        `SELECT ${GROUP_WITH_PARENT} FROM user_groups g WHERE environment = ? AND team_id = ?`,
      ),
      findByToken: db.prepare<[string, Buffer], UserGroupRow>(
        `SELECT ${GROUP_WITH_PARENT} FROM user_groups g WHERE environment = ? AND token_hash = ?`,
      ),
      // Only the team_id comes back: the rest of the row is what was bound (insertedGroupRow), not read again.
      insert: db.prepare<unknown[], { team_id: number }>(
        `INSERT INTO user_groups (environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at,
                                  emails, is_demo_group, hierarchy_level, group_tags, parent_team_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (environment, provided_id) DO NOTHING
         RETURNING team_id`,
      ),
      update: db.prepare<unknown[], UserGroupRow>(
        `UPDATE user_groups SET
           name       = CASE WHEN ? THEN ? ELSE name END,
           mapping    = CASE WHEN ? THEN ? ELSE mapping END,
           properties = CASE WHEN ? THEN ? ELSE properties END,
           parent_team_id = CASE WHEN ? THEN ? ELSE parent_team_id END,
           emails     = CASE WHEN ? THEN ? ELSE emails END,
           is_demo_group = CASE WHEN ? THEN ? ELSE is_demo_group END,
           hierarchy_level = CASE WHEN ? THEN ? ELSE hierarchy_level END,
           group_tags = CASE WHEN ? THEN ? ELSE group_tags END,
           provided_id = coalesce(?, provided_id),
           token_ciphertext = coalesce(?, token_ciphertext),
           updated_at = ?
         WHERE environment = ? AND provided_id = ? AND (? IS NULL OR token_hash = ?)
         RETURNING *`,
      ),
      replaceToken: db.prepare<unknown[], UserGroupRow>(
        `UPDATE user_groups SET token_hash = ?, token_ciphertext = ?, updated_at = ?
         WHERE team_id = ? AND token_hash = ?
         RETURNING *`,
      ),
      replaceCiphertext: db.prepare('UPDATE user_groups SET token_ciphertext = ? WHERE team_id = ? AND token_ciphertext = ?'),
      list: db.prepare<
        [{ environment: string; before: number; prefix: string | null; parent: string | null; limit: number }],
        UserGroupRow
      >(
        `SELECT ${GROUP_WITH_PARENT} FROM user_groups g
         WHERE environment = @environment AND team_id < @before
           AND (@prefix IS NULL OR substr(provided_id, 1, length(@prefix)) = @prefix OR substr(name, 1, length(@prefix)) = @prefix)
           AND (@parent IS NULL OR parent_team_id = (SELECT team_id FROM user_groups WHERE environment = @environment AND provided_id = @parent))
         ORDER BY team_id DESC LIMIT @limit`,
      ),
      tagsFound: db.prepare<[string, string], { name: string }>(
        'SELECT name FROM group_tags WHERE environment = ? AND name IN (SELECT value FROM json_each(?))',
      ),
      count: db.prepare<[], { environment: string; n: number }>('SELECT environment, count(*) AS n FROM user_groups GROUP BY environment'),
      deleteById: db.prepare<[number]>('DELETE FROM user_groups WHERE team_id = ?'),
      listAfter: db.prepare<[number, number], UserGroupRow>(
        `SELECT ${GROUP_WITH_PARENT} FROM user_groups g WHERE team_id > ? ORDER BY team_id LIMIT ?`,
      ),
      // An explicit team_id also advances AUTOINCREMENT's sequence, so new ids stay above imported ones.
    };
    // One read transaction per batch of lookups: one snapshot, and one WAL read lock instead of one per lookup.
    const snapshot = db.transaction((read: () => (UserGroupRecord | null)[]) => read());
    const inOneSnapshot = (read: () => (UserGroupRecord | null)[]) => {
      health.assertUsable();
      return snapshot(read);
    };
    const recordOrNull = (row: UserGroupRow | undefined) => (row ? toUserGroupRecord(row) : null);
    this.cachedById = new UnchangedReadCache(db, CACHED_GROUPS);
    const byId = (environment: Environment, providedId: string) => {
      const key = groupKey(environment, providedId);
      const cached = this.cachedById.get(key);
      if (cached) return cached;
      const row = this.statements.find.get(environment, providedId);
      // An absent group is not kept: the next lookup of it is most likely its creation's.
      return row ? this.cachedById.keep(key, toUserGroupRecord(row)) : null;
    };
    this.groupById = perTurnBatch(async (keys) => {
      health.assertUsable();
      // Nothing written since the kept groups were read, and every key kept: no read transaction to open and close.
      this.cachedById.unchanged();
      const kept = keys.map(([environment, providedId]) => this.cachedById.get(groupKey(environment, providedId)));
      if (kept.every((group) => group !== undefined)) return kept;
      return inOneSnapshot(() => {
        this.cachedById.unchanged();
        return keys.map(([environment, providedId]) => byId(environment, providedId));
      });
    });
    this.groupByTokenHash = perTurnBatch(async (keys) =>
      inOneSnapshot(() => keys.map(([environment, tokenHash]) => recordOrNull(this.statements.findByToken.get(environment, tokenHash)))),
    );
  }

  findUserGroup(environment: Environment, providedId: string): Promise<UserGroupRecord | null> {
    return this.groupById([environment, providedId]);
  }

  findUserGroupByTokenHash(environment: Environment, tokenHash: Buffer): Promise<UserGroupRecord | null> {
    return this.groupByTokenHash([environment, tokenHash]);
  }

  async findUserGroupByTeamId(environment: Environment, teamId: number): Promise<UserGroupRecord | null> {
    this.health.assertUsable();
    const row = this.statements.findByTeamId.get(environment, teamId);
    return row ? toUserGroupRecord(row) : null;
  }

  async insertUserGroupIfAbsent(
    group: NewUserGroup,
    consequences: GroupWriteConsequences,
  ): Promise<{ group: UserGroupRecord; created: boolean }> {
    return this.groupCommit.run(() => {
      const existing = () => {
        const row = this.statements.find.get(group.environment, group.providedId);
        return row ? { group: toUserGroupRecord(row), created: false } : undefined;
      };
      // A group that exists is answered as it is: its parent and tags count on creation only, so a create naming
      // either reads first. One naming neither (most) just inserts, and reads only when the insert finds the id taken.
      let parentTeamId: number | null = null;
      if (group.parentId || (group.groupTags && group.groupTags.length > 0)) {
        const found = existing();
        if (found) return found;
        this.assertTagsExist(group.environment, group.groupTags);
        if (group.parentId)
          parentTeamId = this.hierarchy.placeUnder(group.environment, { teamId: null, providedId: group.providedId }, group.parentId);
      }
      const columns = newGroupColumns(group);
      const inserted = this.statements.insert.get(...columns, parentTeamId);
      if (!inserted) {
        const found = existing();
        if (found) return found;
        throw new Error('user group insert wrote nothing, yet no group has its id');
      }
      this.appender.persist(consequences({ teamId: inserted.team_id }));
      const row = insertedGroupRow(inserted.team_id, columns, parentTeamId, group.parentId || null);
      return { group: toUserGroupRecord(row), created: true };
    });
  }

  async updateUserGroup(
    environment: Environment,
    providedId: string,
    changes: UserGroupChanges,
    consequences: GroupWriteConsequences,
  ): Promise<UserGroupRecord | null> {
    const row = await this.groupCommit.run(() => {
      const rename = changes.rename;
      this.assertTagsExist(environment, changes.groupTags);
      if (rename && this.statements.find.get(environment, rename.providedId)) throw renameTaken(environment, rename.providedId);
      let parentTeamId: number | null = null;
      if (changes.parentId) {
        const current = this.statements.find.get(environment, providedId);
        if (!current) return undefined;
        parentTeamId = this.hierarchy.placeUnder(environment, { teamId: current.team_id, providedId }, changes.parentId);
      }
      const updated = this.statements.update.get(
        changes.name !== undefined ? 1 : 0,
        changes.name ?? null,
        changes.mapping !== undefined ? 1 : 0,
        jsonOrNull(changes.mapping),
        changes.properties !== undefined ? 1 : 0,
        jsonOrNull(changes.properties),
        changes.parentId !== undefined ? 1 : 0,
        parentTeamId,
        ...customerChanges(changes).flatMap(([set, value]) => [set ? 1 : 0, value]),
        rename?.providedId ?? null,
        rename?.tokenCiphertext ?? null,
        changes.updatedAt,
        environment,
        providedId,
        rename?.expectedTokenHash ?? null,
        rename?.expectedTokenHash ?? null,
      );
      if (!updated) return undefined;
      this.appender.persist(consequences({ teamId: updated.team_id }));
      return this.statements.find.get(environment, rename?.providedId ?? providedId);
    });
    return row ? toUserGroupRecord(row) : null;
  }

  /** Tags a write gives a group must exist: checked in its transaction, where no tag write can come between (one writer). */
  private assertTagsExist(environment: Environment, tags: readonly string[] | null | undefined): void {
    if (!tags || tags.length === 0) return;
    const found = new Set(this.statements.tagsFound.all(environment, JSON.stringify(tags)).map((row) => row.name));
    const missing = [...new Set(tags)].filter((tag) => !found.has(tag));
    if (missing.length > 0) throw unknownGroupTags(environment, missing);
  }

  async replaceToken(r: TokenReplacement, consequences: WriteConsequences): Promise<UserGroupRecord | null> {
    const row = await this.groupCommit.run(() => {
      const replaced = this.statements.replaceToken.get(r.tokenHash, r.tokenCiphertext, r.updatedAt, r.teamId, r.expectedTokenHash);
      if (replaced) {
        replaced.parent_provided_id = this.statements.find.get(replaced.environment, replaced.provided_id)?.parent_provided_id ?? null;
        this.appender.persist(consequences);
      }
      return replaced;
    });
    return row ? toUserGroupRecord(row) : null;
  }

  async replaceTokenCiphertext(teamId: number, expected: Buffer, next: Buffer): Promise<boolean> {
    return this.groupCommit.run(() => this.statements.replaceCiphertext.run(next, teamId, expected).changes > 0);
  }

  async listUserGroups(
    environment: Environment,
    page: { beforeTeamId: number; limit: number; prefix?: string; parentId?: string },
  ): Promise<UserGroupRecord[]> {
    this.health.assertUsable();
    const parameters = {
      environment,
      before: page.beforeTeamId,
      prefix: page.prefix ?? null,
      parent: page.parentId ?? null,
      limit: page.limit,
    };
    return this.statements.list.all(parameters).map(toUserGroupRecord);
  }

  async findUserGroupLineage(environment: Environment, providedId: string): Promise<UserGroupLineage | null> {
    this.health.assertUsable();
    const chain = this.hierarchy
      .lineage(environment, providedId)
      .map((row, i, rows) => toUserGroupRecord({ ...row, parent_provided_id: rows[i - 1]?.provided_id ?? null }));
    const group = chain.pop();
    return group ? { group, ancestors: chain } : null;
  }

  async listDescendants(
    environment: Environment,
    providedId: string,
    page: { beforeTeamId: number; limit: number },
  ): Promise<UserGroupRecord[]> {
    this.health.assertUsable();
    return this.hierarchy.descendants(environment, providedId, page.beforeTeamId, page.limit).map(toUserGroupRecord);
  }

  async countUserGroups(): Promise<Record<Environment, number>> {
    this.health.assertUsable();
    const counts: Record<Environment, number> = { Customer: 0, Testing: 0 };
    for (const row of this.statements.count.all()) counts[row.environment as Environment] = row.n;
    return counts;
  }

  async deleteUserGroup(
    environment: Environment,
    providedId: string,
    consequences: GroupsDeletedConsequences,
    options: { cascade?: boolean } = {},
  ): Promise<UserGroupRecord | null> {
    const row = await this.groupCommit.run(() => {
      const group = this.statements.find.get(environment, providedId);
      if (!group) return undefined;
      if (!options.cascade && this.hierarchy.hasChildren(group.team_id)) throw hasChildrenConflict(providedId);
      // Children before parents (highest team_id first, the order PostgreSQL's deletion takes too).
      const members = this.hierarchy.subtree(group.team_id).reverse();
      for (const member of members) this.statements.deleteById.run(member.team_id);
      this.appender.persist(consequences(members.map(toUserGroupRecord)));
      return group;
    });
    return row ? toUserGroupRecord(row) : null;
  }

  async listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    this.health.assertUsable();
    return this.statements.listAfter.all(afterTeamId, limit).map(toUserGroupRecord);
  }
}
