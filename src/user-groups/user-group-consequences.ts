import type { AuditContext } from '../audit/audit.js';
import { groupRevocation } from '../consequences/embed-revocation.js';
import type { UserGroupRecord } from './user-group.js';
import { PARENT_FIELD } from './user-group-hierarchy.js';
import type {
  GroupsDeletedConsequences,
  GroupWriteConsequences,
  NewUserGroup,
  TokenReplacement,
  UserGroupChanges,
} from './user-group-store.js';
import { auditedChange, combined, type WriteConsequences } from '../consequences/write-consequences.js';

/**
 * What each user-group write leaves, decided here and handed to the store by
 * UserGroupService: the values, or a function of the one fact only the write
 * learns, the written group's team_id (see GroupWriteConsequences for how a
 * store supplies it). Adding a consequence to a write touches this file only.
 */

/** A group created: `audit.fields` names the fields the create set. */
export function groupCreated(
  group: Pick<NewUserGroup, 'environment' | 'providedId' | 'createdAt'>,
  audit: AuditContext,
): GroupWriteConsequences {
  const { environment, providedId, createdAt } = group;
  return ({ teamId }) => auditedChange('user_group.created', createdAt, { environment, providedId, teamId }, audit);
}

/** A group updated; a change of parent makes it a move, which lists the parent among the changed fields. */
export function groupUpdated(
  environment: UserGroupRecord['environment'],
  providedId: string,
  changes: UserGroupChanges,
  audit: AuditContext,
): GroupWriteConsequences {
  if (changes.parentId === undefined)
    return ({ teamId }) => auditedChange('user_group.updated', changes.updatedAt, { environment, providedId, teamId }, audit);
  const moved = { ...audit, fields: [...audit.fields, PARENT_FIELD] };
  return ({ teamId }) => auditedChange('user_group.moved', changes.updatedAt, { environment, providedId, teamId }, moved);
}

/**
 * A group renamed (the Customer API's new_provided_id): audited and evented as an update naming the new id, with
 * the old one in the event, and every session minted under the old id ends (their `sub` names an id that may
 * become another group's).
 */
export function groupRenamed(
  group: { environment: UserGroupRecord['environment']; providedId: string; tokenHash: Buffer },
  newProvidedId: string,
  changes: UserGroupChanges,
  audit: AuditContext,
): GroupWriteConsequences {
  const updated = groupUpdated(group.environment, newProvidedId, changes, { ...audit, fields: [...audit.fields, 'provided_id'] });
  return (written) => {
    const base = updated(written);
    return {
      ...base,
      events: base.events.map((event) => ({ ...event, data: { ...event.data, previous_user_group_id: group.providedId } })),
      revocations: [groupRevocation(group, 'user_group_renamed', changes.updatedAt)],
    };
  };
}

/** A token rotated: audited, and every session minted under the old token ends with it. */
export function tokenRotated(r: TokenReplacement, audit: AuditContext): WriteConsequences {
  const rotated = auditedChange('user_group.token_rotated', r.updatedAt, r, audit);
  const old = { environment: r.environment, providedId: r.providedId, tokenHash: r.expectedTokenHash };
  return { ...rotated, revocations: [groupRevocation(old, 'token_rotated', r.updatedAt)] };
}

/**
 * Groups deleted at `at`, the members handed over in the order they go
 * (children before their parents): each audited as a deletion of its own, and
 * each one's sessions ended.
 */
export function groupsDeleted(at: string, audit: AuditContext): GroupsDeletedConsequences {
  return (members) =>
    combined(
      members.map((member) => ({
        ...auditedChange('user_group.deleted', at, member, audit),
        revocations: [groupRevocation(member, 'user_group_deleted', at)],
      })),
    );
}
