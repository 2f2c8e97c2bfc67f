import { Type, type Static } from '@sinclair/typebox';
import { UserGroupId } from '../../user-groups/http/user-group-schemas.js';
import { USAGE_LIMITS } from '../usage.js';

/** The usage part of the wire: a group's buckets, and the environment's groups ranked. */

const Instant = (name: 'from' | 'to', fallback: string) =>
  Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: `An RFC 3339 date-time (2026-11-01T00:00:00Z, or with an offset). ${fallback} At most ${USAGE_LIMITS.rangeMaxDays} days from "from" to "to", "from" before "to"; otherwise 400.`,
      examples: [name === 'from' ? '2026-10-27T00:00:00Z' : '2026-11-26T00:00:00Z'],
    }),
  );

const From = Instant(
  'from',
  `Default: the start of the last ${USAGE_LIMITS.rangeDefaultDays} UTC days up to the one holding the instant before "to" (with "to" left out, the last ${USAGE_LIMITS.rangeDefaultDays} days, today's included: ${USAGE_LIMITS.rangeDefaultDays} daily buckets, as in the console and \`ugs usage\`).`,
);
const To = Instant('to', 'Default: the end of the bucket holding now.');

export const GroupUsageParams = Type.Object({ user_group_id: UserGroupId });
export type GroupUsageParams = Static<typeof GroupUsageParams>;

export const GroupUsageQuery = Type.Object({
  from: From,
  to: To,
  granularity: Type.Union([Type.Literal('hour'), Type.Literal('day')], {
    default: 'day',
    description: 'The buckets: UTC hours or UTC days. The first holds "from", the last the instant before "to".',
  }),
});
export type GroupUsageQuery = Static<typeof GroupUsageQuery>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Sessions = Count(
  'Embed sessions minted (POST /api/embed_sessions), Metabase tokens minted (POST /api/integrations/metabase/embed_tokens) among them.',
);
const Renewals = Count('Embed tokens renewed (POST /api/embed_sessions/renew).');

export const UsageBucketItem = Type.Object({
  start: Type.String({ format: 'date-time', description: "The bucket's first instant (UTC)." }),
  sessions: Sessions,
  renewals: Renewals,
  viewers: Count('Distinct viewers (viewer.id) with a session minted or renewed in the bucket; sessions minted without a viewer add none.'),
});

export const GroupUsageResponse = Type.Object({
  success: Type.Literal(1),
  usage: Type.Array(UsageBucketItem, { description: 'Every bucket of the range, oldest first, zeros included.' }),
});
export type GroupUsageResponse = Static<typeof GroupUsageResponse>;

export const TopUsageQuery = Type.Object({
  from: From,
  to: To,
  limit: Type.Integer({
    minimum: 1,
    maximum: USAGE_LIMITS.topMax,
    default: USAGE_LIMITS.topDefault,
    description: `How many groups: the top ones, no paging (a ranking of the range; narrow the range for others). 1 to ${USAGE_LIMITS.topMax}.`,
  }),
});
export type TopUsageQuery = Static<typeof TopUsageQuery>;

export const GroupTotalsItem = Type.Object({
  user_group_id: Type.String(),
  name: Type.String(),
  sessions: Sessions,
  renewals: Renewals,
  viewers: Count('Distinct viewers with a session minted or renewed in the range.'),
  last_session_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      "The group's latest mint, in or out of the range, within the retention (UGS_USAGE_RETENTION_DAYS); null when none is kept.",
  }),
});

export const TopUsageResponse = Type.Object({
  success: Type.Literal(1),
  from: Type.String({ format: 'date-time', description: '"from", rounded down to its UTC hour: the range counted.' }),
  to: Type.String({ format: 'date-time', description: '"to", rounded up to a UTC hour (exclusive).' }),
  groups: Type.Array(GroupTotalsItem, {
    description:
      'The groups (existing now) with sessions minted or renewed in the range, most sessions first, then most renewals, then by user_group_id.',
  }),
});
export type TopUsageResponse = Static<typeof TopUsageResponse>;
