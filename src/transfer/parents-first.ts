import type { UserGroupRecord } from '../user-groups/user-group.js';

/**
 * Reorders groups read in team_id order so that every parent comes before its
 * children, streaming: a move can put a group under a newer one (a higher
 * team_id), and only such groups are held back, until their parent is out.
 * An import can then check each parent link against what it has already read.
 */
export class ParentsFirst {
  /** Groups held back, by the parent they wait for. */
  private readonly waiting = new Map<number, UserGroupRecord[]>();
  /** Every group held back, directly or under a held-back parent. */
  private readonly held = new Set<number>();
  /** The highest team_id read so far. */
  private read = 0;

  /** What can go out now that `group` (the next in team_id order) is read. */
  next(group: UserGroupRecord): UserGroupRecord[] {
    this.read = group.teamId;
    const parent = group.parentTeamId ?? null;
    // A lower team_id has been read already: it is out unless it is held back itself.
    if (parent !== null && (parent > this.read || this.held.has(parent))) {
      this.held.add(group.teamId);
      this.waiting.set(parent, [...(this.waiting.get(parent) ?? []), group]);
      return [];
    }
    return this.release(group);
  }

  /** Groups still held back once every group is read: their parent never came (a corrupt store). */
  leftOver(): number {
    return this.held.size;
  }

  private release(group: UserGroupRecord): UserGroupRecord[] {
    const out = [group];
    for (let i = 0; i < out.length; i++) {
      const children = this.waiting.get(out[i]!.teamId) ?? [];
      this.waiting.delete(out[i]!.teamId);
      for (const child of children) this.held.delete(child.teamId);
      out.push(...children);
    }
    return out;
  }
}
