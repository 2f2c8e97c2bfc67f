import type { UserGroup, UserGroupDetail, UserGroupSummary } from '../user-group.js';

/** A root shows no parent field at all, so its answers are what they were before groups had parents. */
const parentOf = (group: UserGroupSummary) => (group.parentId ? { parent_user_group_id: group.parentId } : {});

/** The `user_group` object of each operation, field for field as the spec lists them. */
export function getOrCreateView(group: UserGroup) {
  return {
    team_id: group.teamId,
    token: group.token,
    name: group.name,
    provided_id: group.providedId,
    ...(group.properties === null ? {} : { properties: group.properties }),
    ...parentOf(group),
  };
}

export function updateView(group: UserGroup) {
  return { ...getOrCreateView(group), api_environment_tag: group.environment };
}

export function rotateView(group: UserGroup) {
  return {
    team_id: group.teamId,
    token: group.token,
    name: group.name,
    provided_id: group.providedId,
    api_environment_tag: group.environment,
    ...parentOf(group),
  };
}

export function itemView(group: UserGroupSummary) {
  return {
    team_id: group.teamId,
    provided_id: group.providedId,
    name: group.name,
    properties: group.properties,
    mapping: group.mapping,
    api_environment_tag: group.environment,
    created_at: group.createdAt,
    updated_at: group.updatedAt,
    ...parentOf(group),
  };
}

export function detailView(detail: UserGroupDetail) {
  return {
    ...itemView(detail.group),
    ancestors: detail.ancestors,
    effective_properties: detail.effectiveProperties,
    effective_mapping: detail.effectiveMapping,
    resolved_mapping: detail.resolvedMapping.map((entry) => ({
      schema: entry.schema,
      value: entry.value,
      from_user_group_id: entry.from,
      inherited: entry.from !== detail.group.providedId,
      data_source: entry.dataSource,
    })),
  };
}
