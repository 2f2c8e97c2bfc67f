import { jsonOrNull } from './json-column.js';
import type { NewUserGroup } from './store.js';

/**
 * The user_groups columns an insert sets, as parameters, in the order both
 * stores' INSERT statements list them: environment, provided_id, name,
 * mapping, properties, token_hash, token_ciphertext, created_at, updated_at.
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
  ];
}
