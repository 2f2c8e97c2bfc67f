import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EnvironmentTag } from '../../platform/http/schemas.js';
import { PATTERNS } from '../../platform/http/patterns.js';
import { LIMITS } from '../../user-groups/user-group.js';
import { Mapping, Name, Properties } from '../../user-groups/http/user-group-schemas.js';
import { CUSTOMER_LIMITS } from '../customer.js';
import { GROUP_TAG_LIMITS } from '../../group-tags/group-tag.js';

/** The Customer API part of the wire (Explo's Customer API: /api/create_customer/, …), field names as its reference has them. */

export const CUSTOMER_TAGS = ['Customer API'];

const PRINTABLE = PATTERNS.printable.pattern;

export const ProvidedId = Type.String({
  minLength: 1,
  maxLength: LIMITS.idMaxLength,
  pattern: PRINTABLE,
  description: "Your id for the customer: this service's user_group_id, unique per environment.",
  examples: ['example_1'],
});

const Emails = Type.Array(Type.String({ minLength: 1, maxLength: CUSTOMER_LIMITS.emailMaxLength }), {
  maxItems: CUSTOMER_LIMITS.emailsMax,
  description: "The customer's email addresses (stored and answered; this service sends them nothing).",
  examples: [['example@example.com']],
});

const TagNames = Type.Array(Type.String({ minLength: 1, maxLength: GROUP_TAG_LIMITS.nameMaxLength }), {
  maxItems: GROUP_TAG_LIMITS.perGroupMax,
  description: 'Names of existing group tags (POST /api/create_group_tag/ creates one); a name that is no tag is a 400.',
  examples: [['sales']],
});

const LevelName = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'A hierarchy level of this service (UGS_CUSTOMER_HIERARCHY_LEVELS; default "Customer", then "User").',
  examples: ['Customer'],
});

/** null where a field may be sent as null: Explo's generated clients send null for "not given". */
const OrNull = <T extends TSchema>(schema: T, description: string) => Type.Optional(Type.Union([schema, Type.Null()], { description }));

export const CreateCustomerBody = Type.Object(
  {
    provided_id: ProvidedId,
    name: Type.Optional(Type.Unsafe<string>({ ...Name, description: 'Display name; required to create a customer.' })),
    mapping: Type.Optional(Mapping),
    properties: Type.Optional(Properties),
    is_demo_group: Type.Optional(Type.Boolean({ description: 'A demo customer (stored and answered); default false.' })),
    emails: Type.Optional(Emails),
    group_tags: Type.Optional(TagNames),
    hierarchy_level_name: Type.Optional(LevelName),
    parent_provided_id: Type.Optional(
      Type.Unsafe<string>({ ...ProvidedId, description: 'The parent customer, at a higher hierarchy level.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const ProvidedIdBody = Type.Object({ provided_id: ProvidedId }, { additionalProperties: false });

export const UpdateCustomerBody = Type.Object(
  {
    provided_id: ProvidedId,
    new_provided_id: OrNull(ProvidedId, 'A new id for the customer; its token stays, its embed sessions end (they name the old id).'),
    name: OrNull(Name, 'A new display name (null: unchanged).'),
    mapping: OrNull(Mapping, "Replaces the customer's own mapping (null: cleared)."),
    properties: OrNull(Properties, "Replaces the customer's own properties (null: cleared)."),
    is_demo_group: OrNull(Type.Boolean(), 'null: unchanged.'),
    emails: OrNull(Emails, 'Replaces the addresses (null or []: none).'),
    group_tags: OrNull(TagNames, 'Replaces the tags ([] or null: none).'),
    hierarchy_level_name: OrNull(LevelName, 'A new hierarchy level (null: unchanged).'),
    parent_provided_id: OrNull(
      Type.Unsafe<string>({ ...ProvidedId }),
      'Moves the customer under this parent (at a higher level); null detaches it.',
    ),
  },
  { additionalProperties: false },
);
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

export const CurrentTokenBody = Type.Object(
  { current_token: Type.String({ minLength: 1, maxLength: 255, description: "The customer's current token." }) },
  { additionalProperties: false },
);

export const ListCustomersQuery = Type.Object({
  parent_provided_id: Type.Optional(Type.Unsafe<string>({ ...ProvidedId, description: 'Only the children of this customer.' })),
  hierarchy_level_name: Type.Optional(Type.Unsafe<string>({ ...LevelName, description: 'Only the customers at this level.' })),
});
export type ListCustomersFilters = Static<typeof ListCustomersQuery>;

/** The filters as a JSON body, where the reference declares them (its v1 page lists them as body fields of the GET). */
export const ListCustomersBody = Type.Object(ListCustomersQuery.properties, { additionalProperties: false });

export const ListCustomersV2Query = Type.Object({
  ...ListCustomersQuery.properties,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The page, from 1 (default 1).' })),
  page_size: Type.Optional(
    Type.Integer({ minimum: 1, maximum: CUSTOMER_LIMITS.pageSizeMax, description: 'Customers per page: default 20, at most 1000.' }),
  ),
  pageSize: Type.Optional(
    Type.Integer({ minimum: 1, maximum: CUSTOMER_LIMITS.pageSizeMax, description: "page_size as the reference's own example spells it." }),
  ),
});

const MappingOut = Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]));

export const CustomerJson = Type.Object({
  token: Type.String({ description: "The customer's token: this service's user group token." }),
  name: Type.String(),
  provided_id: Type.String(),
  is_demo_group: Type.Boolean(),
  emails: Type.Array(Type.String()),
  group_tags: Type.Array(Type.String()),
  properties: Type.Record(Type.String(), Type.Unknown(), { description: "The customer's own properties." }),
  computed_properties: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Its properties over those it inherits from its ancestors.',
  }),
  access_group: EnvironmentTag,
  parent_schema_datasource_mapping: MappingOut,
  computed_parent_schema_datasource_mapping: MappingOut,
  hierarchy_level: Type.Union([Type.String(), Type.Null()], {
    description: 'Its level; null for a group made through /api/user without one.',
  }),
  parent_provided_id: Type.Union([Type.String(), Type.Null()], { description: "Its parent's provided_id; null for a root." }),
});

export const CustomerResponse = Type.Object({ success: Type.Literal(1), customer: CustomerJson });
export const CreateCustomerResponse = Type.Object({ success: Type.Literal(1), new_customer: Type.Boolean(), customer: CustomerJson });
export const SuccessResponse = Type.Object({ success: Type.Literal(1) });
export const CustomersV1Response = Type.Object({ success: Type.Literal(1), customers: Type.Array(CustomerJson) });
export const CustomersV2Response = Type.Object({
  success: Type.Literal(1),
  total_count: Type.Integer(),
  results: Type.Object({ customers: Type.Array(CustomerJson) }),
});

export const GenerateJwtBody = Type.Object(
  {
    provided_id: ProvidedId,
    embed_id: OrNull(Type.String({ minLength: 1, maxLength: 255 }), "The dashboard being embedded: the session's dsh claim."),
    expiration: OrNull(
      Type.String({ minLength: 2, maxLength: 64 }),
      'An ISO 8601 duration (e.g. PT1H) from 1 minute to 24 hours; default 24 hours.',
    ),
    key_id: OrNull(
      Type.String({ maxLength: 255 }),
      "The signing key's kid: accepted only when it is the environment's active key (sessions are signed with the environment's key set).",
    ),
    chart_id: OrNull(Type.String({ minLength: 1, maxLength: 255 }), 'Carried as the claim cht.'),
    rb_allowed_features: OrNull(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }), 'Carried as the claim rbc.'),
    disable_editable_section_editing: OrNull(Type.Boolean(), 'Carried as the claim des.'),
    embed_origin: OrNull(Type.String({ minLength: 1, maxLength: 2048 }), 'The only origin the session may be embedded from (claim org).'),
  },
  { additionalProperties: false },
);
export type GenerateJwtBody = Static<typeof GenerateJwtBody>;
export const GenerateJwtResponse = Type.Object({ success: Type.Literal(1), jwt: Type.String() });

export const ConfigurePortalBody = Type.Object({
  dashboard_embed_id: Type.Optional(Type.String()),
  provided_id: Type.Optional(Type.String()),
  emails: Type.Optional(Type.Array(Type.String())),
});
