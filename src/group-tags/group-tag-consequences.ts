import type { AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, combined, type WriteConsequences } from '../consequences/write-consequences.js';
import type { TagChangeConsequences } from './group-tag-store.js';

/**
 * What each tag write leaves. The tag's own audit record names it in `fields` (`group_tag=sales`: a tag's name is
 * no secret, and the audit log has no column for it) and its event carries `group_tag` (and `new_group_tag`); a
 * rename or a deletion is also a `user_group.updated` of each group it rewrote, `changed: ["group_tags"]`, so a
 * receiver mirroring groups hears of every group whose tags changed.
 */
const tagSubject = (environment: Environment, groupTag: string, newGroupTag?: string) => ({
  environment,
  teamId: null,
  providedId: null,
  groupTag,
  ...(newGroupTag === undefined ? {} : { newGroupTag }),
});

const named = (audit: AuditContext, ...names: string[]): AuditContext => ({ ...audit, fields: names });

export function groupTagCreated(environment: Environment, name: string, at: string, audit: AuditContext): WriteConsequences {
  return auditedChange('group_tag.created', at, tagSubject(environment, name), named(audit, `group_tag=${name}`));
}

export function groupTagRenamed(
  environment: Environment,
  name: string,
  newName: string,
  at: string,
  audit: AuditContext,
): TagChangeConsequences {
  const renamed = auditedChange(
    'group_tag.renamed',
    at,
    tagSubject(environment, name, newName),
    named(audit, `group_tag=${name}`, `new_name=${newName}`),
  );
  return (carriers) => combined([renamed, ...carriersUpdated(environment, carriers, at, audit)]);
}

export function groupTagDeleted(environment: Environment, name: string, at: string, audit: AuditContext): TagChangeConsequences {
  const deleted = auditedChange('group_tag.deleted', at, tagSubject(environment, name), named(audit, `group_tag=${name}`));
  return (carriers) => combined([deleted, ...carriersUpdated(environment, carriers, at, audit)]);
}

function carriersUpdated(
  environment: Environment,
  carriers: readonly { teamId: number; providedId: string }[],
  at: string,
  audit: AuditContext,
) {
  return carriers.map(({ teamId, providedId }) =>
    auditedChange('user_group.updated', at, { environment, teamId, providedId }, named(audit, 'group_tags')),
  );
}
