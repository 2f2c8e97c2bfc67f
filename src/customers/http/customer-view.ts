import type { Customer } from '../customer.js';

/** A customer as the Customer API answers one, field for field as its reference lists them (and its parent). */
export function customerJson({ group, computedProperties, computedMapping }: Customer) {
  return {
    token: group.token,
    name: group.name,
    provided_id: group.providedId,
    is_demo_group: group.isDemoGroup === true,
    emails: group.emails ?? [],
    group_tags: group.groupTags ?? [],
    properties: group.properties ?? {},
    computed_properties: computedProperties,
    access_group: group.environment,
    parent_schema_datasource_mapping: group.mapping ?? {},
    computed_parent_schema_datasource_mapping: computedMapping,
    hierarchy_level: group.hierarchyLevel ?? null,
    parent_provided_id: group.parentId ?? null,
  };
}
