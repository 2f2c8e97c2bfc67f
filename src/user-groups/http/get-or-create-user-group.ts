import type { FastifyRequest } from 'fastify';
import type { UserGroupService } from '../user-group-service.js';
import { invalidRequest } from '../../kernel/errors.js';
import { parseJsonBody } from '../../platform/http/json-body-parser.js';
import {
  ANY_REQUEST_ERRORS,
  API_KEY_ERRORS,
  BODY_ERRORS,
  documented,
  errorAnswers,
  EXAMPLE_TOKEN,
} from '../../platform/http/route-docs.js';
import { GetOrCreateBody, GetOrCreateQuery, GetOrCreateResponse } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { getOrCreateView } from './user-group-view.js';

/** GET /api/user: returns the group for `user_group_id`, creating it when missing. */
export function registerGetOrCreateUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user', {
    // HEAD must never create: it has its own route (head-user-group.ts), not a copy of this one.
    exposeHeadRoute: false,
    schema: {
      summary: 'Get or create a user group',
      description:
        "Returns the group with this user_group_id in the key's environment, creating it (name required) when there is none. The fields come as a JSON body, sent with GET (e.g. `curl -X GET -d`); clients that cannot send a body with GET send none and put the same fields in the query string instead, with mapping and properties JSON-encoded (see the query parameters).",
      tags: ['User groups'],
      body: documented(GetOrCreateBody, {
        examples: {
          create: {
            summary: 'Get the group, creating it when missing',
            value: { user_group_id: 'acme', name: 'Acme Inc.', mapping: { '40': '213' }, properties: { region: 'eu' } },
          },
          get: { summary: 'Get an existing group (name only needed to create)', value: { user_group_id: 'acme' } },
        },
      }),
      // The body may be left out for the query string (see openapi.ts).
      'x-body-optional': true,
      response: {
        200: documented(GetOrCreateResponse, {
          description: 'The group, created by this call or already there (new_user_group says which).',
          examples: {
            created: {
              summary: 'Created by this call',
              value: {
                success: 1,
                new_user_group: true,
                user_group: { team_id: 1, token: EXAMPLE_TOKEN, name: 'Acme Inc.', provided_id: 'acme', properties: { region: 'eu' } },
              },
            },
            existing: {
              summary: 'Already there',
              value: {
                success: 1,
                new_user_group: false,
                user_group: { team_id: 1, token: EXAMPLE_TOKEN, name: 'Acme Inc.', provided_id: 'acme', properties: { region: 'eu' } },
              },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'conflict'),
      },
    },
    config: {
      // The query string is read by preValidation below, not validated by Fastify: declared for the document only.
      swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, querystring: GetOrCreateQuery }, url }),
    },
    // Callback-style, on the hottest route: an async hook costs a promise and a microtask per request.
    preValidation: (request, _reply, done) => {
      try {
        if (request.body === undefined) request.body = bodyFromQuery(request) as GetOrCreateBody;
      } catch (error) {
        done(error as Error);
        return;
      }
      done();
    },
    handler: async (request) => {
      const { user_group_id, name, mapping, properties, parent_user_group_id } = request.body;
      // The request is the change's origin: its address is read only if a group is created.
      const { group, created } = await userGroups.getOrCreate(
        request.principal,
        { userGroupId: user_group_id, name, mapping, properties, parentUserGroupId: parent_user_group_id },
        request,
      );
      return { success: 1 as const, new_user_group: created, user_group: getOrCreateView(group) };
    },
  });
}

/** The body a client without GET bodies sends as `?user_group_id=..&name=..&mapping={..}&properties={..}`. */
export function bodyFromQuery(request: FastifyRequest): Record<string, unknown> {
  const query = request.query as Record<string, string | string[] | undefined>;
  const body: Record<string, unknown> = {};
  for (const field of ['user_group_id', 'name', 'parent_user_group_id'] as const) {
    if (query[field] !== undefined) body[field] = query[field];
  }
  for (const field of ['mapping', 'properties'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidRequest(`"${field}" may appear only once in the query string.`);
    try {
      body[field] = parseJsonBody(value);
    } catch (error) {
      // The parser names the document "The request body": here it is this parameter.
      throw invalidRequest((error as Error).message.replace('The request body', `"${field}" in the query string`));
    }
  }
  return body;
}
