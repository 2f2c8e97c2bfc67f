import { Type, type Static } from '@sinclair/typebox';
import { EMBED_LIMITS } from '../embed-session.js';
import { REVOCATION_REASONS } from '../../consequences/embed-revocation.js';
import { BODY_MAX_BYTES } from '../../platform/http/json-body-parser.js';
import { ViewerBody } from '../../viewers/http/viewer-schemas.js';
import { EnvironmentTag, sealedCursor } from '../../platform/http/schemas.js';
import { Mapping, Properties, UserGroupId } from '../../user-groups/http/user-group-schemas.js';

/** The embed session part of the wire (POST /api/embed_sessions and its siblings). */

const Origin = Type.String({
  minLength: 1,
  maxLength: 300,
  description:
    'An origin as a browser sends it, scheme://host[:port]: https (http for a loopback host: localhost, 127.0.0.0/8, [::1]), the host a DNS name or an IP literal, the port 1 to 65535; e.g. https://app.example.com.',
  examples: ['https://app.example.com'],
});

export const MintBody = Type.Object({
  user_group_id: Type.Optional(UserGroupId),
  user_group_token: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1024, description: "The group's current token, instead of user_group_id." }),
  ),
  expires_in: Type.Optional(
    Type.Integer({
      minimum: EMBED_LIMITS.expiresInMin,
      maximum: EMBED_LIMITS.expiresInMax,
      description: `Seconds the session lives, ${EMBED_LIMITS.expiresInMin} to ${EMBED_LIMITS.expiresInMax}; default ${EMBED_LIMITS.expiresInDefault}.`,
    }),
  ),
  dashboard: Type.Optional(
    Type.String({ minLength: 1, maxLength: EMBED_LIMITS.dashboardMaxLength, description: 'The dashboard the session is for (claim dsh).' }),
  ),
  origins: Type.Optional(
    Type.Array(Origin, { maxItems: EMBED_LIMITS.originsMax, description: 'Origins allowed to frame the dashboard (claim org).' }),
  ),
  include_descendants: Type.Optional(
    Type.Boolean({
      description: `Adds the ids of the group's whole subtree (claim desc), when it has at most ${EMBED_LIMITS.descendantsMax} descendants; more answer 409 conflict.`,
    }),
  ),
  viewer: Type.Optional(ViewerBody),
  max_lifetime: Type.Optional(
    Type.Integer({
      minimum: EMBED_LIMITS.expiresInMin,
      maximum: EMBED_LIMITS.maxLifetimeMax,
      description: `Seconds the session may live through its renewals (POST /api/embed_sessions/renew), from expires_in to ${EMBED_LIMITS.maxLifetimeMax} (7 days); default ${EMBED_LIMITS.maxLifetimeDefault} (12 hours), or expires_in when longer.`,
    }),
  ),
});
export type MintBody = Static<typeof MintBody>;

export const MintResponse = Type.Object({
  success: Type.Literal(1),
  embed_session: Type.Object({
    token: Type.String({ description: 'The embed token: a compact JWS (typ embed+jwt) to hand to the browser.' }),
    session_id: Type.String(),
    expires_at: Type.String({ format: 'date-time' }),
    user_group_id: Type.String(),
    team_id: Type.Integer({ minimum: 1 }),
  }),
});
export type MintResponse = Static<typeof MintResponse>;

export const RenewBody = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: BODY_MAX_BYTES,
    description: "The session's current token (or an earlier one still valid, from another tab).",
  }),
  expires_in: Type.Optional(
    Type.Integer({
      minimum: EMBED_LIMITS.expiresInMin,
      maximum: EMBED_LIMITS.expiresInMax,
      description: `Seconds the new token lives, ${EMBED_LIMITS.expiresInMin} to ${EMBED_LIMITS.expiresInMax}, capped by the session's maximum lifetime; default ${EMBED_LIMITS.expiresInDefault}.`,
    }),
  ),
});
export type RenewBody = Static<typeof RenewBody>;

export const SessionIdParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 100 }) });
export type SessionIdParams = Static<typeof SessionIdParams>;

// Bounded by the body limit only: a group at every limit mints a token of about 437 KB (see docs), and each one the service mints must be
// accepted back.
export const IntrospectBody = Type.Object({ token: Type.String({ maxLength: BODY_MAX_BYTES, description: 'An embed token.' }) });
export type IntrospectBody = Static<typeof IntrospectBody>;

export const IntrospectResponse = Type.Object(
  {
    active: Type.Boolean(),
    iss: Type.Optional(Type.String()),
    aud: Type.Optional(Type.String()),
    sub: Type.Optional(Type.String()),
    env: Type.Optional(EnvironmentTag),
    tid: Type.Optional(Type.Integer()),
    name: Type.Optional(Type.String()),
    map: Type.Optional(Mapping),
    props: Type.Optional(Properties),
    gprops: Type.Optional(Properties),
    tv: Type.Optional(Type.String()),
    jti: Type.Optional(Type.String()),
    iat: Type.Optional(Type.Integer()),
    exp: Type.Optional(Type.Integer()),
    dsh: Type.Optional(Type.String()),
    org: Type.Optional(Type.Array(Type.String())),
    anc: Type.Optional(Type.Array(Type.String())),
    desc: Type.Optional(Type.Array(Type.String())),
    vid: Type.Optional(Type.String()),
    vat: Type.Optional(Properties),
  },
  {
    // Every claim the token has is answered, the ones a later version adds too: the serializer drops what a schema does not allow.
    additionalProperties: true,
    description:
      'RFC 7662: {"active":false} for any token that is not live in the key\'s environment, else active and every claim of the token.',
  },
);
export type IntrospectResponse = Static<typeof IntrospectResponse>;

export const RevocationsQuery = Type.Object({
  after: Type.Optional(sealedCursor('next_cursor of the previous page, unchanged; omit to start from the oldest kept entry.')),
  limit: Type.Integer({ minimum: 1, maximum: EMBED_LIMITS.revocationsPageMax, default: EMBED_LIMITS.revocationsPageDefault }),
});
export type RevocationsQuery = Static<typeof RevocationsQuery>;

export const Revocation = Type.Object({
  session_id: Type.Union([Type.String(), Type.Null()], { description: 'When set, the one session (jti) ended.' }),
  user_group_id: Type.Union([Type.String(), Type.Null()], {
    description: "The group; null for a viewer's entry (its sessions end in every group).",
  }),
  token_version: Type.Union([Type.String(), Type.Null()], {
    description: 'When set: every session of the group (user_group_id) with this tv ended.',
  }),
  viewer_id: Type.Union([Type.String(), Type.Null()], {
    description: 'When set: every session of this viewer (vid) with an iat up to the second of revoked_at ended, in every group.',
  }),
  reason: Type.Union(REVOCATION_REASONS.map((r) => Type.Literal(r))),
  revoked_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time', description: 'After it no token this entry covers can be live; forget it then.' }),
});

export const RevocationsResponse = Type.Object({
  success: Type.Literal(1),
  environment: Type.Union([EnvironmentTag], {
    description:
      "The key's environment: the feed covers its tokens only, so a verifier polling it must refuse tokens of the other environment.",
  }),
  revocations: Type.Array(Revocation),
  next_cursor: Type.String({ description: 'Pass as after next time (the same cursor when nothing is new).' }),
});
export type RevocationsResponse = Static<typeof RevocationsResponse>;
