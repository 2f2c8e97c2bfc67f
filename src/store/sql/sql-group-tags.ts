import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { GroupTagRecord } from '../../group-tags/group-tag.js';
import type { GroupTagStore, TagCarrier, TagChangeConsequences } from '../../group-tags/group-tag-store.js';
import { append, run, type SqlDatabase } from './sql-database.js';
import { statement, type Dialect } from './sql-statement.js';

interface TagRow {
  environment: string;
  name: string;
  created_at: string;
}

interface CarrierRow {
  team_id: number;
  provided_id: string;
}

const LIST = statement<TagRow>(
  'listGroupTags',
  'SELECT environment, name, created_at FROM group_tags WHERE environment = @environment ORDER BY position, name',
);
/** The next position of the environment's list: after every tag made before (concurrent creates may share one). */
const NEXT_POSITION = '(SELECT coalesce(max(position), 0) + 1 FROM group_tags WHERE environment = @environment)';
const INSERT = statement<TagRow>(
  'insertGroupTag',
  `INSERT INTO group_tags (environment, name, created_at, position) VALUES (@environment, @name, @createdAt, ${NEXT_POSITION})
   ON CONFLICT (environment, name) DO NOTHING RETURNING name`,
);
/** The renamed tag as a new row with the old one's creation time: inserting cannot fail on a taken name, it inserts nothing. */
const INSERT_RENAMED = statement<TagRow>(
  'insertRenamedGroupTag',
  `INSERT INTO group_tags (environment, name, created_at, position)
   SELECT environment, @newName, created_at, position FROM group_tags WHERE environment = @environment AND name = @name
   ON CONFLICT (environment, name) DO NOTHING RETURNING name`,
);
/** `ugs import`: a tag as exported, its creation time kept, placed after those imported before it (the file's order). */
export const IMPORT_GROUP_TAG = statement(
  'importGroupTag',
  `INSERT INTO group_tags (environment, name, created_at, position) VALUES (@environment, @name, @createdAt, ${NEXT_POSITION})`,
);
const FIND = statement<TagRow>('findGroupTag', 'SELECT name FROM group_tags WHERE environment = @environment AND name = @name');
const DELETE = statement<TagRow>(
  'deleteGroupTag',
  'DELETE FROM group_tags WHERE environment = @environment AND name = @name RETURNING name',
);

/** Each tag the environment's groups carry, with how many carry it (a group lists a tag once; DISTINCT holds it anyway). */
const COUNT_CARRIERS = statement<{ name: string; n: number | string }>('countGroupTagCarriers', (dialect) =>
  dialect === 'sqlite'
    ? `SELECT t.value AS name, count(DISTINCT g.team_id) AS n FROM user_groups g, json_each(g.group_tags) t
       WHERE g.environment = @environment AND g.group_tags IS NOT NULL GROUP BY t.value`
    : `SELECT t.v AS name, count(DISTINCT g.team_id) AS n FROM user_groups g, jsonb_array_elements_text(g.group_tags::jsonb) AS t (v)
       WHERE g.environment = @environment AND g.group_tags IS NOT NULL GROUP BY t.v`,
);

/** The environment's groups whose `group_tags` (a JSON array of names, as text) hold @name. */
const carrying = (dialect: Dialect) =>
  dialect === 'sqlite'
    ? 'environment = @environment AND EXISTS (SELECT 1 FROM json_each(user_groups.group_tags) WHERE json_each.value = @name)'
    : 'environment = @environment AND group_tags::jsonb ? @name::text';

/** Each carrier's list with @name replaced by @newName, in its order. */
const RENAME_ON_GROUPS = statement<CarrierRow>('renameTagOnGroups', (dialect) =>
  dialect === 'sqlite'
    ? `UPDATE user_groups SET updated_at = @at, group_tags = (
         SELECT json_group_array(CASE WHEN value = @name THEN @newName ELSE value END)
         FROM (SELECT value FROM json_each(user_groups.group_tags) ORDER BY key))
       WHERE ${carrying(dialect)} RETURNING team_id, provided_id`
    : `UPDATE user_groups SET updated_at = @at::timestamptz, group_tags = (
         SELECT jsonb_agg(CASE WHEN t.v = @name::text THEN @newName::text ELSE t.v END ORDER BY t.i)
         FROM jsonb_array_elements_text(group_tags::jsonb) WITH ORDINALITY AS t (v, i))::text
       WHERE ${carrying(dialect)} RETURNING team_id, provided_id`,
);
/** Each carrier's list without @name, in its order (an empty list stays an empty list: the group was given tags). */
const REMOVE_FROM_GROUPS = statement<CarrierRow>('removeTagFromGroups', (dialect) =>
  dialect === 'sqlite'
    ? `UPDATE user_groups SET updated_at = @at, group_tags = (
         SELECT json_group_array(value) FROM (SELECT value FROM json_each(user_groups.group_tags) WHERE value <> @name ORDER BY key))
       WHERE ${carrying(dialect)} RETURNING team_id, provided_id`
    : `UPDATE user_groups SET updated_at = @at::timestamptz, group_tags = COALESCE((
         SELECT jsonb_agg(t.v ORDER BY t.i)
         FROM jsonb_array_elements_text(group_tags::jsonb) WITH ORDINALITY AS t (v, i) WHERE t.v <> @name::text), '[]'::jsonb)::text
       WHERE ${carrying(dialect)} RETURNING team_id, provided_id`,
);

const carriersOf = (rows: CarrierRow[]): TagCarrier[] =>
  rows.map((row) => ({ teamId: Number(row.team_id), providedId: row.provided_id })).sort((a, b) => a.teamId - b.teamId);

/** Group tags, written once for both databases: each change, the groups it rewrites and its consequences in one transaction. */
export class SqlGroupTags implements GroupTagStore {
  constructor(private readonly db: SqlDatabase) {}

  async listGroupTags(environment: Environment): Promise<GroupTagRecord[]> {
    return (await this.db.all(LIST, { environment })).map((row) => ({
      environment: row.environment as Environment,
      name: row.name,
      createdAt: row.created_at,
    }));
  }

  async countTagCarriers(environment: Environment): Promise<Map<string, number>> {
    return new Map((await this.db.all(COUNT_CARRIERS, { environment })).map((row) => [row.name, Number(row.n)]));
  }

  async insertGroupTag(tag: GroupTagRecord, consequences: WriteConsequences): Promise<boolean> {
    return (await this.db.write(INSERT, { ...tag }, { consequences })).length > 0;
  }

  renameGroupTag(
    environment: Environment,
    change: { name: string; newName: string; at: string },
    consequences: TagChangeConsequences,
  ): Promise<'renamed' | 'missing' | 'taken'> {
    return this.db.transaction(function* () {
      const parameters = { environment, ...change };
      if ((yield* run(INSERT_RENAMED, parameters)).length === 0) {
        return (yield* run(FIND, parameters)).length === 0 ? 'missing' : 'taken';
      }
      yield* run(DELETE, parameters);
      const carriers = carriersOf(yield* run(RENAME_ON_GROUPS, parameters));
      yield* append({ consequences: consequences(carriers) });
      return 'renamed';
    });
  }

  deleteGroupTag(environment: Environment, change: { name: string; at: string }, consequences: TagChangeConsequences): Promise<boolean> {
    return this.db.transaction(function* () {
      const parameters = { environment, ...change };
      if ((yield* run(DELETE, parameters)).length === 0) return false;
      const carriers = carriersOf(yield* run(REMOVE_FROM_GROUPS, parameters));
      yield* append({ consequences: consequences(carriers) });
      return true;
    });
  }
}
