import type { GroupTagService } from '../group-tag-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { GroupTagsResponse, GROUP_TAG_TAGS } from './group-tag-schemas.js';

/** GET /api/group_tags/: the environment's tags. */
export function registerListGroupTags(app: TypedApp, tags: GroupTagService): void {
  app.get('/api/group_tags/', {
    schema: {
      summary: 'List group tags',
      description: "Explo's Group Tag API: the tags of the key's environment, oldest first.",
      tags: GROUP_TAG_TAGS,
      response: {
        200: documented(GroupTagsResponse, {
          description: 'The tags.',
          examples: { tags: { summary: 'Two tags', value: { success: 1, group_tags: [{ name: 'marketing' }, { name: 'sales' }] } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden'),
      },
    },
    handler: async (request) => ({
      success: 1 as const,
      group_tags: (await tags.list(request.principal)).map((tag) => ({ name: tag.name })),
    }),
  });
}
