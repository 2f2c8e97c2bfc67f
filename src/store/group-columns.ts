import { jsonOrNull } from './json-column.js';
import type { NewUserGroup, UserGroupChanges } from './store.js';
import type { CustomerFields } from '../user-groups/user-group.js';

/**
 * The user_groups columns an insert sets, as parameters, in the order both
 * stores' INSERT statements list them: environment, provided_id, name,
 * mapping, properties, token_hash, token_ciphertext, created_at, updated_at,
 * emails, is_demo_group, hierarchy_level, group_tags.
 */
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

/** The Customer API's columns, as an insert or an update binds them: is_demo_group as 0 or 1, which both databases take. */
export function customerColumns(fields: CustomerFields): unknown[] {
  return [jsonOrNull(fields.emails), fields.isDemoGroup ? 1 : 0, fields.hierarchyLevel ?? null, jsonOrNull(fields.groupTags)];
}

/** An update's Customer API columns, each as [whether the update sets it, its bound value], in customerColumns' order. */
export function customerChanges(changes: UserGroupChanges): [boolean, unknown][] {
  const values = customerColumns(changes);
  return (['emails', 'isDemoGroup', 'hierarchyLevel', 'groupTags'] as const).map((field, i) => [changes[field] !== undefined, values[i]]);
}
