import type { EventService } from '../event-service.js';
import { EventsQuery, EventsResponse } from './event-schemas.js';
import { queryValidatorCompiler } from '../../platform/http/query-validator.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';

const CREATED = {
  id: 'evt_8f14e45fceea167a5a36dedd4bea2543',
  type: 'user_group.created' as const,
  timestamp: '2025-01-31T12:00:00.000Z',
  data: { api_environment_tag: 'Customer' as const, user_group_id: 'acme-eu', team_id: 3 },
};
const UPDATED = {
  id: 'evt_c9f0f895fb98ab9159f51fd0297e236d',
  type: 'user_group.updated' as const,
  timestamp: '2025-02-01T09:30:00.000Z',
  data: { api_environment_tag: 'Customer' as const, user_group_id: 'acme-eu', team_id: 3, changed: ['name', 'properties'] },
};

/** GET /api/events: the environment's changes in commit order, for consumers that poll. */
export function registerListEvents(app: TypedApp, events: EventService): void {
  app.get('/api/events', {
    schema: {
      summary: 'List events',
      description:
        "The changes made in the key's environment (groups created, updated, moved, rotated, deleted; API keys created and revoked; embed sessions ended), oldest first in commit order, each written in the transaction of its change. Pass next_cursor back as `after` to get what came since: none is skipped. Events are kept UGS_EVENT_RETENTION_DAYS days (30 by default). Any read-write or read-only key; embed keys are refused (403).",
      tags: ['Events'],
      querystring: EventsQuery,
      response: {
        200: documented(EventsResponse, {
          description: 'One page of events.',
          examples: {
            page: { summary: 'Two events', value: { success: 1, events: [CREATED, UPDATED], next_cursor: 'u8NVbDS1k3DzgJKL0m8x4w' } },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden'),
      },
    },
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const { after, limit } = request.query;
      const page = await events.list(request.principal, { after, limit: limit! });
      return { success: 1 as const, events: page.events, next_cursor: page.nextCursor };
    },
  });
}
