import { invalidRequest } from '../kernel/errors.js';

/**
 * The Customer API's named hierarchy levels (UGS_CUSTOMER_HIERARCHY_LEVELS), top first: a customer's parent must be
 * at a strictly higher level. A group that was given no level (made through /api/user) is not held to it, and holds
 * no other group to it.
 */
export class HierarchyLevels {
  constructor(readonly names: readonly string[]) {}

  /** Where a level ranks (0 for the top); a 400 for a name that is no level. */
  rank(name: string, field = 'hierarchy_level_name'): number {
    const rank = this.names.indexOf(name);
    if (rank === -1) {
      throw invalidRequest(
        `"${field}" ${JSON.stringify(name)} is no hierarchy level of this service; the levels are ${this.list()} (top first).`,
      );
    }
    return rank;
  }

  /** The level a new customer gets when none is named: the top one, or the one below its parent's. */
  defaultFor(parentLevel: string | null | undefined): string {
    if (parentLevel === null || parentLevel === undefined) return this.names[0]!;
    const below = this.names[this.rank(parentLevel) + 1];
    if (below === undefined) {
      throw invalidRequest(`The parent is at the lowest hierarchy level (${JSON.stringify(parentLevel)}): no customer can be below it.`);
    }
    return below;
  }

  /** A 400 unless `parent` ranks strictly above `child` (either unset: nothing to hold). */
  assertAbove(parent: string | null | undefined, child: string | null | undefined, parentId: string): void {
    if (parent === null || parent === undefined || child === null || child === undefined) return;
    if (this.rank(parent) >= this.rank(child)) {
      throw invalidRequest(
        `The parent ${JSON.stringify(parentId)} is at hierarchy level ${JSON.stringify(parent)}, not above ${JSON.stringify(child)}: a parent must be at a strictly higher level (${this.list()}, top first).`,
      );
    }
  }

  private list(): string {
    return this.names.map((name) => JSON.stringify(name)).join(', ');
  }
}
