import type { Environment } from '../kernel/environment.js';
import { invalidRequest } from '../kernel/errors.js';
import { nfcRefusal } from '../kernel/nfc-ids.js';

/**
 * A group tag: a name an environment's groups may carry (the Customer API's group tags). Tags are named, never
 * numbered, as that API names them; a group carries the names, so renaming or deleting a tag rewrites its
 * carriers in the same transaction (group-tag-store.ts).
 */
export interface GroupTagRecord {
  environment: Environment;
  name: string;
  createdAt: string;
}

export const GROUP_TAG_LIMITS = {
  nameMaxLength: 255,
  /** Tags one group may carry. */
  perGroupMax: 100,
} as const;

/**
 * A tag name as given (`field` is the field as the caller wrote it): non-blank, at most 255 characters, no control
 * characters (PostgreSQL's jsonb, which the rename and delete read the carriers' lists with, refuses \u0000) and
 * in Unicode NFC, so that two names that look the same are one tag.
 */
export function checkTagName(name: string, field: string): string {
  if (name.trim() === '') throw invalidRequest(`"${field}" must name a group tag: it is empty.`);
  if ([...name].length > GROUP_TAG_LIMITS.nameMaxLength) {
    throw invalidRequest(`"${field}" is longer than ${GROUP_TAG_LIMITS.nameMaxLength} characters.`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw invalidRequest(`"${field}" holds a control character; a group tag's name is one line of text.`);
  const refusal = nfcRefusal(name, field, 'group tag names', 'tags');
  if (refusal !== null) throw invalidRequest(refusal);
  return name;
}

/**
 * The refusal of a group given tags its environment does not have, made by each store in the write's own
 * transaction, which a concurrent deletion or rename cannot slip past.
 */
export function unknownGroupTags(environment: Environment, names: readonly string[]) {
  const list = names.map((name) => JSON.stringify(name)).join(', ');
  const one = names.length === 1;
  return invalidRequest(
    `"group_tags" names ${one ? 'a tag' : 'tags'} the ${environment} environment does not have: ${list}. Create ${one ? 'it' : 'them'} first (POST /api/create_group_tag/).`,
  );
}

/**
 * The names as a group is given them: duplicates dropped, at most 100. Whether each is a tag of the environment
 * is decided by the write itself, in its transaction (unknownGroupTags), where no rename or deletion can come between.
 */
export function groupTagList(names: readonly string[]): string[] {
  const unique = [...new Set(names)];
  if (unique.length > GROUP_TAG_LIMITS.perGroupMax) {
    throw invalidRequest(`"group_tags" names ${unique.length} tags; a group carries at most ${GROUP_TAG_LIMITS.perGroupMax}.`);
  }
  return unique;
}
