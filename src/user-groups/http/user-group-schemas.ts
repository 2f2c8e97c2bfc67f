import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EnvironmentTag } from '../../platform/http/schemas.js';
import { PATTERNS } from '../../platform/http/patterns.js';
import { LIMITS } from '../user-group.js';

/** The user group part of the wire (/api/user, /api/user_groups), and the group fields other concepts' bodies name. */

const PRINTABLE = PATTERNS.printable.pattern;

export const UserGroupId = Type.String({
  minLength: 1,
  maxLength: LIMITS.idMaxLength,
  pattern: PRINTABLE,
  description: 'The id of the user group in your own database; unique per environment.',
  examples: ['acme'],
});

/** The parent a group is placed under: another group of the same environment, by its user_group_id. */
export const ParentId = Type.String({
  minLength: 1,
  maxLength: LIMITS.idMaxLength,
  pattern: PRINTABLE,
  description: 'The user_group_id of the parent group, in the same environment; chains are at most 5 levels deep.',
  examples: ['acme-holding'],
});

export const Name = Type.String({
  minLength: 1,
  maxLength: LIMITS.nameMaxLength,
  pattern: PRINTABLE,
  description: 'Display name of the user group.',
  examples: ['Acme Inc.'],
});

const MappingValue = Type.Union([
  Type.String({ maxLength: LIMITS.mappingValueMaxLength }),
  Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
]);

// Objects with free keys are declared through additionalProperties, not a
// Record's patternProperties: Ajv's `^(.*)$` does not match keys holding line
// breaks, which would let such keys skip validation and vanish on serialization.
export const Mapping = Type.Unsafe<Record<string, Static<typeof MappingValue>>>({
  type: 'object',
  additionalProperties: MappingValue,
  maxProperties: LIMITS.mappingMaxEntries,
  propertyNames: { minLength: 1, maxLength: LIMITS.mappingKeyMaxLength, pattern: PRINTABLE },
  description: 'Schema id to data source (name or id).',
  examples: [{ '40': '213' }],
});

export const Properties = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'Free-form JSON object exposed as dashboard and SQL variables; at most 64 KiB serialized.',
  examples: [{ region: 'eu' }],
});

export const GetOrCreateBody = Type.Object({
  user_group_id: UserGroupId,
  name: Type.Optional(Name),
  mapping: Type.Optional(Mapping),
  properties: Type.Optional(Properties),
  parent_user_group_id: Type.Optional(
    Type.Unsafe<string>({ ...ParentId, description: `${ParentId.description} Used only when the group is created.` }),
  ),
});
export type GetOrCreateBody = Static<typeof GetOrCreateBody>;

/**
 * GET /api/user's fields in the query string, for clients that cannot send a body with GET; read only when
 * there is no body, and checked as the body is (the route's preValidation turns them into one).
 * mapping and properties are JSON-encoded (`x-consume`).
 */
const inQuery = (schema: TSchema, description: string, jsonEncoded = false) =>
  Type.Optional(Type.Unsafe({ ...schema, description, ...(jsonEncoded && { 'x-consume': 'application/json' }) }));
export const GetOrCreateQuery = Type.Object({
  user_group_id: inQuery(UserGroupId, 'Query-string alternative to the body (read only when there is no body).'),
  name: inQuery(Name, 'Query-string alternative to the body (read only when there is no body).'),
  mapping: inQuery(Mapping, 'Query-string alternative to the body: the mapping as a JSON-encoded object.', true),
  properties: inQuery(Properties, 'Query-string alternative to the body: the properties as a JSON-encoded object.', true),
  parent_user_group_id: inQuery(ParentId, 'Query-string alternative to the body (read only when there is no body).'),
});

/** HEAD /api/user's query string (HEAD has no body): the group to look for, the other fields checked as GET checks them. */
export const HeadQuery = Type.Object({
  user_group_id: Type.Unsafe<string>({ ...UserGroupId, description: 'The group to look for.' }),
  name: inQuery(Name, 'Checked as GET checks it (400 when invalid), else ignored: HEAD never creates.'),
  mapping: inQuery(Mapping, 'Checked as GET checks it (400 when invalid), else ignored: HEAD never creates.', true),
  properties: inQuery(Properties, 'Checked as GET checks it (400 when invalid), else ignored: HEAD never creates.', true),
  parent_user_group_id: inQuery(ParentId, 'Checked as GET checks it (400 when invalid), else ignored: HEAD never creates.'),
});

export const UpdateBody = Type.Object({
  user_group_id: UserGroupId,
  name: Type.Optional(Name),
  mapping: Type.Optional(Mapping),
  properties: Type.Optional(Type.Union([Properties, Type.Null()], { description: 'null clears the stored properties.' })),
  parent_user_group_id: Type.Optional(
    Type.Union([ParentId, Type.Null()], { description: 'Moves the group under this parent; null detaches it; absent keeps its parent.' }),
  ),
});
export type UpdateBody = Static<typeof UpdateBody>;

export const RotateBody = Type.Object({
  current_token: Type.String({ minLength: 1, maxLength: 1024, description: 'The token currently held for the group.' }),
});
export type RotateBody = Static<typeof RotateBody>;

/** Present only on a group that has a parent. */
const parentField = {
  parent_user_group_id: Type.Optional(Type.String({ description: "The parent group's user_group_id; absent for a root." })),
};

const groupFields = {
  team_id: Type.Integer({ minimum: 1 }),
  token: Type.String(),
  name: Type.String(),
  provided_id: Type.String(),
  ...parentField,
};

export const GetOrCreateResponse = Type.Object({
  success: Type.Literal(1),
  new_user_group: Type.Boolean(),
  user_group: Type.Object({ ...groupFields, properties: Type.Optional(Properties) }),
});

export const UpdateResponse = Type.Object({
  success: Type.Literal(1),
  user_group: Type.Object({ ...groupFields, properties: Type.Optional(Properties), api_environment_tag: EnvironmentTag }),
});

export const RotateResponse = Type.Object({
  success: Type.Literal(1),
  user_group: Type.Object({ ...groupFields, api_environment_tag: EnvironmentTag }),
});

export const ListQuery = Type.Object({
  // Optional for the client: the validator fills in the default.
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Groups per page, 1 to 100.' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page, unchanged.' })),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: LIMITS.idMaxLength,
      pattern: PRINTABLE,
      description: 'Keep groups whose user_group_id or name starts with this (case-sensitive).',
    }),
  ),
  parent: Type.Optional(
    Type.Unsafe<string>({ ...UserGroupId, description: 'Keep the children of this group (404 when it does not exist).' }),
  ),
});
export type ListQuery = Static<typeof ListQuery>;

export const DescendantsQuery = Type.Object({
  limit: ListQuery.properties.limit,
  cursor: ListQuery.properties.cursor,
});

export const UserGroupIdParams = Type.Object({ user_group_id: UserGroupId });
export type UserGroupIdParams = Static<typeof UserGroupIdParams>;

export const DeleteBody = Type.Object({
  user_group_id: UserGroupId,
  cascade: Type.Optional(
    Type.Boolean({ description: 'Delete the whole subtree; without it a group that has children is refused with 409 conflict.' }),
  ),
});
export type DeleteBody = Static<typeof DeleteBody>;

/** A group as listing and reading show it: no token. */
export const UserGroupItem = Type.Object({
  team_id: Type.Integer({ minimum: 1 }),
  provided_id: Type.String(),
  name: Type.String(),
  properties: Type.Union([Properties, Type.Null()]),
  mapping: Type.Union([Mapping, Type.Null()]),
  api_environment_tag: EnvironmentTag,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  ...parentField,
});

/** What reading one group shows: the item, its ancestors and the values it inherits. */
export const UserGroupDetail = Type.Object({
  ...UserGroupItem.properties,
  ancestors: Type.Array(Type.String(), { description: 'The user_group_ids of its ancestors, root first; empty for a root.' }),
  effective_properties: Type.Union([Properties, Type.Null()], {
    description:
      "The ancestors' properties and its own merged root first: the nearer group wins per top-level key; a null value hides the inherited key.",
  }),
  effective_mapping: Type.Union([Mapping, Type.Null()], { description: 'The mapping merged as effective_properties is.' }),
  resolved_mapping: Type.Array(
    Type.Object({
      schema: Type.String({ description: 'The schema id (a key of effective_mapping).' }),
      value: Type.Union([Type.String(), Type.Number()], { description: 'Its value in effective_mapping.' }),
      from_user_group_id: Type.String({
        description: 'The group whose own mapping sets it: this group, or the ancestor it inherits it from.',
      }),
      inherited: Type.Boolean(),
      data_source: Type.Union([Type.Object({ id: Type.String(), name: Type.String(), kind: Type.String() }), Type.Null()], {
        description:
          "The data source of the group's environment the value names (its id is the value's text); null: none, the value is unresolved.",
      }),
    }),
    { description: 'Each schema of effective_mapping, in schema order, resolved against the data sources of the environment.' },
  ),
});

export const ListResponse = Type.Object({
  success: Type.Literal(1),
  user_groups: Type.Array(UserGroupItem),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page.' }),
});

export const GetResponse = Type.Object({ success: Type.Literal(1), user_group: UserGroupDetail });
export const DeleteResponse = Type.Object({ success: Type.Literal(1) });

/** The wire types, derived from the schemas above (the typed client uses these). */
export type GetOrCreateResponse = Static<typeof GetOrCreateResponse>;
export type UpdateResponse = Static<typeof UpdateResponse>;
export type RotateResponse = Static<typeof RotateResponse>;
export type ListResponse = Static<typeof ListResponse>;
export type GetResponse = Static<typeof GetResponse>;
export type UserGroupItem = Static<typeof UserGroupItem>;
