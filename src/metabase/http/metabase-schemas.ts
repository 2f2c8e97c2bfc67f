import { Type, type Static } from '@sinclair/typebox';
import { ViewerBody } from '../../viewers/http/viewer-schemas.js';
import { METABASE_LIMITS } from '../metabase-settings.js';
import { METABASE_ENTITY_ID } from '../metabase-token.js';

/** The Metabase part of the wire (/api/integrations/metabase and its mint). */

export const METABASE_TAGS = ['Metabase'];
const L = METABASE_LIMITS;

export const PutMetabaseBody = Type.Object(
  {
    site_url: Type.String({
      minLength: 1,
      maxLength: L.siteUrlMaxLength,
      description: "Metabase's address, e.g. https://metabase.example.com.",
    }),
    secret_key: Type.String({
      minLength: 1,
      maxLength: L.secretMaxLength,
      description:
        "Metabase's embedding secret key (Admin settings, Embedding, Static embedding): 64 lowercase hexadecimal characters, as Metabase makes it. Sealed with the server secret; never returned.",
    }),
    max_expires_in: Type.Optional(
      Type.Integer({
        description: `The longest lifetime a mint may ask for, in seconds, from ${L.expiresInMin} to ${L.expiresInMax}; default ${L.maxExpiresInDefault}. Metabase cannot end a token before it expires.`,
      }),
    ),
  },
  { additionalProperties: false },
);

const Settings = Type.Object({
  site_url: Type.String(),
  secret_key_set: Type.Literal(true, { description: 'A secret key is stored (it is never returned).' }),
  max_expires_in: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const MetabaseSettingsResponse = Type.Object({ success: Type.Literal(1), metabase: Settings });
export const MetabaseRemovedResponse = Type.Object({ success: Type.Literal(1) });

/**
 * A numeric id, or an Entity ID (Metabase's 21-character NanoID, stable across serialization). The schema takes any
 * whole number or short string; the service checks which (checkedResource), with a message naming the field.
 */
const MetabaseId = (description: string) =>
  Type.Union([Type.Integer(), Type.String({ maxLength: 64 })], {
    description: `${description} A positive whole number, or 21 characters matching ${METABASE_ENTITY_ID.source}.`,
  });

const LockedValue = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
]);

export const MintMetabaseTokenBody = Type.Object(
  {
    user_group_id: Type.String({ minLength: 1, maxLength: 255, description: 'The group whose values the locked parameters carry.' }),
    resource: Type.Object(
      {
        dashboard: Type.Optional(MetabaseId("The dashboard's id in Metabase, or its Entity ID.")),
        question: Type.Optional(MetabaseId("The question's id in Metabase, or its Entity ID.")),
      },
      { additionalProperties: false, description: 'Exactly one of dashboard or question.' },
    ),
    params: Type.Record(Type.String({ maxLength: 255 }), Type.String({ maxLength: 300 }), {
      maxProperties: 50,
      description:
        'Each locked parameter (its slug in Metabase) and where its value comes from: "user_group_id", "user_group_subtree" (the group and its descendants), "property:<name>" (an effective property of the group, never overlaid by the viewer\'s attributes) or "viewer:<attribute>". At least one must come from the group. Every locked parameter of the dashboard must be here, and no other: Metabase refuses the token otherwise.',
    }),
    viewer: Type.Optional(ViewerBody),
    expires_in: Type.Optional(
      Type.Integer({
        description: `Seconds the token lives, from ${L.expiresInMin} to the environment's max_expires_in; default ${L.expiresInDefault} (or max_expires_in when shorter).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const MintMetabaseTokenResponse = Type.Object({
  success: Type.Literal(1),
  metabase_token: Type.Object({
    token: Type.String({ description: 'The signed token (HS256 under the Metabase secret key).' }),
    url: Type.String({ description: "Metabase's embed page for the resource with this token: the iframe's src." }),
    expires_at: Type.String({ format: 'date-time' }),
    resource: Type.Object({ dashboard: Type.Optional(MetabaseId('As asked.')), question: Type.Optional(MetabaseId('As asked.')) }),
    params: Type.Record(Type.String(), LockedValue, { description: 'The locked parameters as signed: what Metabase filters on.' }),
  }),
});

export type PutMetabaseBody = Static<typeof PutMetabaseBody>;
export type MintMetabaseTokenBody = Static<typeof MintMetabaseTokenBody>;
