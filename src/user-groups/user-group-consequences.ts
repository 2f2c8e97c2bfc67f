import type { AuditContext } from '../audit/audit.js';
import { groupRevocation } from '../consequences/embed-revocation.js';
import type { UserGroupRecord } from './user-group.js';
import { PARENT_FIELD } from './user-group-hierarchy.js';
import type { TokenReplacement, UserGroupChanges } from './user-group-store.js';
import { auditedChange, combined, type WriteConsequences } from '../consequences/write-consequences.js';

/**
 * The group a write changes, as far as its consequences name it. `teamId` is
 * null when only the write learns it (the id a create assigns, the row an
 * update finds by provided id): SQLite builds the consequences inside the
 * write, once it knows; PostgreSQL, which writes change and consequences in
 * one statement, builds them with null and its statement sets the written
 * row's team_id on the audit record and adds it to the event's data (jsonb
 * keeps no key order, so the stored data is the same). That is the only fact
 * a store adds; everything else is decided here.
 */
export interface WrittenGroup {
  environment: UserGroupRecord['environment'];
  providedId: string;
  teamId: number | null;
}

/** A group created: `audit.fields` names the fields the create set. */
export function groupCreated(group: WrittenGroup, at: string, audit: AuditContext): WriteConsequences {
  return auditedChange('user_group.created', at, group, audit);
}

/** A group updated; a change of parent makes it a move, which lists the parent among the changed fields. */
export function groupUpdated(group: WrittenGroup, changes: UserGroupChanges, audit: AuditContext): WriteConsequences {
  if (changes.parentId === undefined) return auditedChange('user_group.updated', changes.updatedAt, group, audit);
  return auditedChange('user_group.moved', changes.updatedAt, group, { ...audit, fields: [...audit.fields, PARENT_FIELD] });
}

/** A token rotated: audited, and every session minted under the old token ends with it. */
export function tokenRotated(r: TokenReplacement, audit: AuditContext): WriteConsequences {
  const rotated = auditedChange('user_group.token_rotated', r.updatedAt, r, audit);
  const old = { environment: r.environment, providedId: r.providedId, tokenHash: r.expectedTokenHash };
  return { ...rotated, revocations: [groupRevocation(old, 'token_rotated', r.updatedAt)] };
}

/**
 * Groups deleted, `members` in the order they go (children before their
 * parents): each audited as a deletion of its own, and each one's sessions
 * ended.
 */
export function groupsDeleted(members: readonly UserGroupRecord[], at: string, audit: AuditContext): WriteConsequences {
  return combined(
    members.map((member) => ({
      ...auditedChange('user_group.deleted', at, member, audit),
      revocations: [groupRevocation(member, 'user_group_deleted', at)],
    })),
  );
}
