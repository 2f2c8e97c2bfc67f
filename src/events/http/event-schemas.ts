import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from '../event.js';
import { EnvironmentTag, sealedCursor } from '../../platform/http/schemas.js';

/** The event part of the wire (GET /api/events; later the webhook deliveries' bodies). */

export const EventsQuery = Type.Object({
  after: Type.Optional(sealedCursor('next_cursor of the previous page, unchanged; leave it out to start from the oldest event kept.')),
  // Optional for the client: the validator fills in the default.
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Events per page, 1 to 1000.' })),
});
export type EventsQuery = Static<typeof EventsQuery>;

/** Names only: never a token, an API key, a secret or a property value. */
const EventData = Type.Object(
  {
    api_environment_tag: EnvironmentTag,
    user_group_id: Type.Optional(Type.String({ description: 'The group concerned (user_group.* and embed_session.* events).' })),
    team_id: Type.Optional(Type.Integer({ minimum: 1, description: 'The team_id of the group concerned.' })),
    api_key_id: Type.Optional(Type.String({ description: 'The id (not the key) of the API key concerned (api_key.* events).' })),
    changed: Type.Optional(
      Type.Array(Type.String(), {
        description: 'The names of the fields an update or a move set (user_group.updated, user_group.moved); never their values.',
      }),
    ),
    webhook_id: Type.Optional(Type.String({ description: 'The webhook concerned (webhook.* events); never its URL or secret.' })),
    viewer_id: Type.Optional(Type.String({ description: 'The viewer whose sessions ended (viewer.sessions_revoked).' })),
    data_source_id: Type.Optional(Type.String({ description: 'The data source concerned (data_source.*): its caller-supplied id.' })),
    signing_key_id: Type.Optional(
      Type.String({
        description:
          'signing_key.rotated: the `kid` of the new embed token signing key of the environment the event belongs to (published in its JWKS at once).',
      }),
    ),
    activates_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'signing_key.rotated: when the new key starts signing; until then the previous key signs.',
      }),
    ),
    previous_user_group_id: Type.Optional(
      Type.String({ description: "user_group.updated by a rename (the Customer API's new_provided_id): the id the group had." }),
    ),
    group_tag: Type.Optional(Type.String({ description: 'group_tag.*: the tag concerned (its name before a rename).' })),
    new_group_tag: Type.Optional(Type.String({ description: "group_tag.renamed: the tag's new name." })),
  },
  { additionalProperties: false },
);

export const EventItem = Type.Object({
  id: Type.String({ description: 'Unique per event: what a consumer deduplicates on.' }),
  type: Type.Union(EVENT_TYPES.map((type) => Type.Literal(type))),
  timestamp: Type.String({ format: 'date-time', description: 'When the change was made.' }),
  data: EventData,
});
export type EventItem = Static<typeof EventItem>;

export const EventsResponse = Type.Object({
  success: Type.Literal(1),
  events: Type.Array(EventItem),
  next_cursor: Type.String({ description: 'Pass as `after` for what comes next; unchanged when there was nothing new.' }),
});
export type EventsResponse = Static<typeof EventsResponse>;
