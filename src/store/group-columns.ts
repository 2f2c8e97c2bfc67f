import { jsonOrNull } from './json-column.js';
import type { NewUserGroup, UserGroupChanges } from './store.js';
import type { CustomerFields } from '../user-groups/user-group.js';
import type { UserGroupRow } from './rows.js';

/**
 * The user_groups columns an insert sets, as parameters, in the order both
 * stores' INSERT statements list them: environment, provided_id, name,
 * mapping, properties, token_hash, token_ciphertext, created_at, updated_at,
 * emails, is_demo_group, hierarchy_level, group_tags.
 */
/** A group's key in the stores' maps (the lookup caches, a batch's inputs): its environment and its id. */
export function groupKey(environment: string, providedId: string): string {
  return `${environment}\u0000${providedId}`;
}

export function newGroupColumns(group: NewUserGroup): unknown[] {
  return [
    group.environment,
    group.providedId,
    group.name,
    jsonOrNull(group.mapping),
    jsonOrNull(group.properties),
    group.tokenHash,
    group.tokenCiphertext,
    group.createdAt,
    group.updatedAt,
    ...customerColumns(group),
  ];
}

/**
 * The row an insert of `columns` (newGroupColumns) wrote, as a read of it would return it: what was bound is what
 * is stored (text, blobs and integers are kept as given), so a store reads back only the team_id the insert made.
 */
export function insertedGroupRow(
  teamId: number,
  columns: unknown[],
  parentTeamId: number | null,
  parentProvidedId: string | null,
): UserGroupRow {
  const [
    environment,
    providedId,
    name,
    mapping,
    properties,
    tokenHash,
    tokenCiphertext,
    createdAt,
    updatedAt,
    emails,
    isDemoGroup,
    level,
    tags,
  ] = columns;
  return {
    team_id: teamId,
    environment: environment as string,
    provided_id: providedId as string,
    name: name as string,
    mapping: mapping as string | null,
    properties: properties as string | null,
    token_hash: tokenHash as Buffer,
    token_ciphertext: tokenCiphertext as Buffer,
    created_at: createdAt as string,
    updated_at: updatedAt as string,
    parent_team_id: parentTeamId,
    emails: emails as string | null,
    is_demo_group: isDemoGroup as number,
    hierarchy_level: level as string | null,
    group_tags: tags as string | null,
    parent_provided_id: parentProvidedId,
  };
}

/** The Customer API's columns, as an insert or an update binds them: is_demo_group as 0 or 1, which both databases take. */
export function customerColumns(fields: CustomerFields): unknown[] {
  return [jsonOrNull(fields.emails), fields.isDemoGroup ? 1 : 0, fields.hierarchyLevel ?? null, jsonOrNull(fields.groupTags)];
}

/** An update's Customer API columns, each as [whether the update sets it, its bound value], in customerColumns' order. */
export function customerChanges(changes: UserGroupChanges): [boolean, unknown][] {
  const values = customerColumns(changes);
  return (['emails', 'isDemoGroup', 'hierarchyLevel', 'groupTags'] as const).map((field, i) => [changes[field] !== undefined, values[i]]);
}
