import type { FastifyRequest } from 'fastify';
import type { UserGroupService } from '../../domain/user-group-service.js';
import { invalidRequest } from '../../domain/errors.js';
import { parseJsonBody } from '../json-body-parser.js';
import { errorResponses, GetOrCreateBody, GetOrCreateResponse } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';
import { getOrCreateView } from '../user-group-view.js';

/** GET /api/user: returns the group for `user_group_id`, creating it when missing. */
export function registerGetOrCreateUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.get('/api/user', {
    // HEAD must never create: it has its own route (head-user-group.ts), not a copy of this one.
    exposeHeadRoute: false,
    schema: {
      summary: 'Get or create a user group',
      description: 'Returns the group with this user_group_id in the key\'s environment, creating it (name required) when there is none. The body may be sent with GET; clients that cannot send one put the fields in the query string, with mapping and properties JSON-encoded.',
      body: GetOrCreateBody,
      response: { 200: GetOrCreateResponse, ...errorResponses },
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
      const { user_group_id, name, mapping, properties } = request.body;
      // The request is the change's origin: its address is read only if a group is created.
      const { group, created } = await userGroups.getOrCreate(request.principal, { userGroupId: user_group_id, name, mapping, properties }, request);
      return { success: 1 as const, new_user_group: created, user_group: getOrCreateView(group) };
    },
  });
}

/** The body a client without GET bodies sends as `?user_group_id=..&name=..&mapping={..}&properties={..}`. */
export function bodyFromQuery(request: FastifyRequest): Record<string, unknown> {
  const query = request.query as Record<string, string | string[] | undefined>;
  const body: Record<string, unknown> = {};
  for (const field of ['user_group_id', 'name'] as const) {
    if (query[field] !== undefined) body[field] = query[field];
  }
  for (const field of ['mapping', 'properties'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw invalidRequest(`"${field}" may appear only once in the query string.`);
    try {
      body[field] = parseJsonBody(value);
    } catch (error) {
      throw invalidRequest(`"${field}" in the query string must be a JSON-encoded object: ${(error as Error).message}`);
    }
  }
  return body;
}
