import type { GroupTagService } from '../group-tag-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { GroupTagResponse, GROUP_TAG_TAGS, NameBody } from './group-tag-schemas.js';

/** POST /api/create_group_tag/: a new tag. */
export function registerCreateGroupTag(app: TypedApp, tags: GroupTagService): void {
  app.post('/api/create_group_tag/', {
    schema: {
      summary: 'Create a group tag',
      description:
        "Explo's Group Tag API: a tag of the key's environment; 409 conflict when one has this name. Audited and evented as group_tag.created.",
      tags: GROUP_TAG_TAGS,
      body: documented(NameBody, { examples: { create: { summary: "The reference's example", value: { name: 'tag' } } } }),
      response: {
        200: documented(GroupTagResponse, {
          description: 'Created.',
          examples: { created: { summary: 'Created', value: { success: 1, group_tag: { name: 'tag' } } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'conflict'),
      },
    },
    handler: async (request) => {
      const tag = await tags.create(request.principal, request.body.name, request);
      return { success: 1 as const, group_tag: { name: tag.name } };
    },
  });
}
