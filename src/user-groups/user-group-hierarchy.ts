import { conflict, invalidRequest } from '../kernel/errors.js';
import type { Mapping, Properties, UserGroupRecord } from './user-group.js';

/** The deepest chain allowed: a root and four levels below it. */
export const MAX_HIERARCHY_DEPTH = 5;

/**
 * How far the stores' recursive queries follow parent links: past the deepest
 * legal chain, so a check still sees a violation, yet bounded should the
 * stored links ever be corrupt.
 */
export const HIERARCHY_WALK_LIMIT = MAX_HIERARCHY_DEPTH * 2;

/** The field name a move records in the audit log and the wire uses. */
export const PARENT_FIELD = 'parent_user_group_id';

export interface Placement {
  /** The group being placed; null for a group not created yet (it has no subtree). */
  teamId: number | null;
  providedId: string;
  parentProvidedId: string;
  /** The parent and its ancestors (team_ids, any order), or null when the parent does not exist. */
  parentChain: number[] | null;
  /** Levels in the group's subtree, the group included (1 for a leaf or a new group). */
  subtreeHeight: number;
}

/**
 * Refuses a placement under a parent that is missing (400), that is the group
 * itself or one of its descendants (409), or that makes a chain deeper than
 * MAX_HIERARCHY_DEPTH (409). The stores call it inside the write's transaction,
 * with facts read in that transaction, so concurrent moves cannot both pass.
 */
export function assertPlacement(p: Placement): void {
  if (p.parentChain === null) {
    throw invalidRequest(`"parent_user_group_id" ${JSON.stringify(p.parentProvidedId)} names no user group in this environment.`);
  }
  if (p.teamId !== null && p.parentChain.includes(p.teamId)) {
    throw conflict(
      `User group ${JSON.stringify(p.providedId)} cannot be placed under ${JSON.stringify(p.parentProvidedId)}: that is the group itself or one of its descendants, which would make a cycle.`,
    );
  }
  const depth = p.parentChain.length + p.subtreeHeight;
  if (depth > MAX_HIERARCHY_DEPTH) {
    throw conflict(
      `Placing user group ${JSON.stringify(p.providedId)} under ${JSON.stringify(p.parentProvidedId)} makes a chain ${depth} levels deep; at most ${MAX_HIERARCHY_DEPTH} are allowed (a root and ${MAX_HIERARCHY_DEPTH - 1} below it).`,
    );
  }
}

/** The refusal to delete a group that has children without `cascade`. */
export function hasChildrenConflict(providedId: string) {
  return conflict(
    `User group ${JSON.stringify(providedId)} has child groups; delete them first, or send {"cascade": true} to delete the whole subtree.`,
  );
}

/**
 * Values merged along a chain, root first: the nearer group wins per
 * top-level key, and a null value hides the inherited key. Null when no
 * group of the chain sets any.
 */
export function mergeAlongChain<T extends Mapping | Properties>(chain: readonly (T | null)[]): T | null {
  let merged: Record<string, unknown> | null = null;
  for (const values of chain) {
    if (values === null) continue;
    merged ??= {};
    for (const [key, value] of Object.entries(values)) {
      if (value === null) delete merged[key];
      else merged[key] = value;
    }
  }
  return merged as T | null;
}

/** The effective values of the last group of `chain` (root first). */
export function effectiveValues(chain: readonly UserGroupRecord[]): { properties: Properties | null; mapping: Mapping | null } {
  return { properties: mergeAlongChain(chain.map((g) => g.properties)), mapping: mergeAlongChain(chain.map((g) => g.mapping)) };
}

/** A rename to an id another group of the environment has: what both stores answer, however they learn it. */
export function renameTaken(environment: string, providedId: string) {
  return conflict(`A user group with "user_group_id" ${JSON.stringify(providedId)} already exists in the ${environment} environment.`);
}
