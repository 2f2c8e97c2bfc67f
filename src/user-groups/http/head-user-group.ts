import type { UserGroupService } from '../user-group-service.js';
import { invalidRequest } from '../../kernel/errors.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers, headOperation } from '../../platform/http/route-docs.js';
import { GetOrCreateBody, GetOrCreateResponse, HeadQuery } from './user-group-schemas.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { getOrCreateView } from './user-group-view.js';
import { describeValidationFailure } from '../../platform/http/validation-message.js';
import { bodyFromQuery } from './get-or-create-user-group.js';

/**
 * HEAD /api/user: what GET /api/user with the same query string answers for an
 * existing group (status and headers, no body), and 404 where GET would create
 * one. HEAD is safe by definition: a load balancer or a crawler probing with it
 * must never create a group.
 */
export function registerHeadUserGroup(app: TypedApp, userGroups: UserGroupService): void {
  app.head('/api/user', {
    schema: {
      summary: 'Check that a user group exists',
      description:
        'The status and headers GET /api/user answers for the same query string when the group exists, without a body; 404 when it does not, since HEAD never creates. The fields come from the query string (HEAD has no body).',
      tags: ['User groups'],
      // What GET would answer serializes the headers (Content-Length included); the document declares no body.
      response: {
        200: documented(GetOrCreateResponse, { description: 'The group exists.' }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    config: {
      // The query string is read by the handler, not validated by Fastify: declared for the document only.
      swaggerTransform: ({ schema, url }) => ({ schema: headOperation({ ...schema, querystring: HeadQuery }), url }),
    },
    handler: async (request) => {
      const body = bodyFromQuery(request);
      // The same checks as GET's body, so both answer 400 alike.
      const validate = request.compileValidationSchema(GetOrCreateBody);
      if (!validate(body)) throw invalidRequest(describeValidationFailure(validate.errors ?? []));
      const group = await userGroups.getWithToken(request.principal, (body as GetOrCreateBody).user_group_id);
      return { success: 1 as const, new_user_group: false, user_group: getOrCreateView(group) };
    },
  });
}
