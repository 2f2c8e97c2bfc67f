import type { Environment } from '../kernel/environment.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { GroupTagRecord } from './group-tag.js';

/** A group whose list of tags a rename or a deletion rewrote. */
export interface TagCarrier {
  teamId: number;
  providedId: string;
}

/** What a rename or a deletion leaves, as a function of the groups it rewrote: only the write knows them. */
export type TagChangeConsequences = (carriers: readonly TagCarrier[]) => WriteConsequences;

/**
 * The storage group tags need: a port, implemented once for both databases (src/store/sql/sql-group-tags.ts) and
 * held to it by the store conformance suite. A rename or a deletion changes the tag and every group carrying it
 * (their `group_tags` and `updated_at`) in one transaction, with what `consequences` makes of those groups.
 */
export interface GroupTagStore {
  /** The environment's tags, oldest first. */
  listGroupTags(environment: Environment): Promise<GroupTagRecord[]>;
  /** How many of the environment's groups carry each tag: one read of its groups that have tags; a tag none carries is absent. */
  countTagCarriers(environment: Environment): Promise<Map<string, number>>;
  /** Adds the tag; false (and nothing appended) when the environment has one of this name. */
  insertGroupTag(tag: GroupTagRecord, consequences: WriteConsequences): Promise<boolean>;
  /**
   * Renames the tag, keeping its creation time; 'missing' when there is none of that name, 'taken' when the new
   * name is another tag's (nothing written either way).
   */
  renameGroupTag(
    environment: Environment,
    change: { name: string; newName: string; at: string },
    consequences: TagChangeConsequences,
  ): Promise<'renamed' | 'missing' | 'taken'>;
  /** Deletes the tag and takes it off every group; false when there is none of that name. */
  deleteGroupTag(environment: Environment, change: { name: string; at: string }, consequences: TagChangeConsequences): Promise<boolean>;
}
