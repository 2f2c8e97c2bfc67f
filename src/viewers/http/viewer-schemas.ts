import { Type, type Static } from '@sinclair/typebox';
import { PATTERNS } from '../../platform/http/patterns.js';
import { Properties, UserGroupId } from '../../user-groups/http/user-group-schemas.js';
import { VIEWER_LIMITS } from '../viewer.js';

/** The viewer part of the wire: who views inside a group (POST /api/embed_sessions' `viewer`, /api/viewers, a group's viewers). */

export const ViewerId = Type.String({
  minLength: 1,
  maxLength: VIEWER_LIMITS.idMaxLength,
  pattern: PATTERNS.printable.pattern,
  description: "The viewer's id in your own system (a user id, an email): 1 to 255 characters, in Unicode NFC.",
  examples: ['user-42'],
});

export const ViewerBody = Type.Object(
  {
    id: ViewerId,
    attributes: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        ...Properties,
        description:
          "Overlaid on the group's effective properties in the token's props: an attribute wins over the property of its name, a null hides it. The same rules and 64 KiB limit as properties.",
        examples: [{ sales_rep: 'ana' }],
      }),
    ),
  },
  { additionalProperties: false, description: 'Who views: the token gains vid, and props the attributes.' },
);

export const ViewerIdParams = Type.Object({ viewer_id: ViewerId });
export type ViewerIdParams = Static<typeof ViewerIdParams>;

export const RevokeViewerResponse = Type.Object({
  success: Type.Literal(1),
  viewer_id: Type.String(),
  revoked_at: Type.String({
    format: 'date-time',
    description:
      "The cut-off: every session of the viewer with an iat up to this time's second ended, whichever replica minted it. It may lie a few seconds past the answer (it allows for replicas' clocks, UGS_CLOCK_OFFSET_MAX_MS); sessions minted after this answer work all the same.",
  }),
});
export type RevokeViewerResponse = Static<typeof RevokeViewerResponse>;

export const GroupViewersParams = Type.Object({ user_group_id: UserGroupId });
export type GroupViewersParams = Static<typeof GroupViewersParams>;

export const GroupViewersQuery = Type.Object({
  after: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'next_cursor of the previous page, unchanged; omit to start from the most recent.',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: VIEWER_LIMITS.pageMax, default: VIEWER_LIMITS.pageDefault }),
});
export type GroupViewersQuery = Static<typeof GroupViewersQuery>;

export const ViewerItem = Type.Object({
  viewer_id: Type.String(),
  first_seen_at: Type.String({ format: 'date-time', description: 'When a session first named this viewer in this group.' }),
  last_seen_at: Type.String({ format: 'date-time', description: 'When a session last named this viewer in this group.' }),
  sessions: Type.Integer({ minimum: 1, description: 'Sessions minted for this viewer in this group.' }),
});

export const GroupViewersResponse = Type.Object({
  success: Type.Literal(1),
  viewers: Type.Array(ViewerItem),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as after for the next page; null on the last page.' }),
});
export type GroupViewersResponse = Static<typeof GroupViewersResponse>;
