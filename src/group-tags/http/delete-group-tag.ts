import type { GroupTagService } from '../group-tag-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { GROUP_TAG_TAGS, NameBody, TagDeletedResponse } from './group-tag-schemas.js';

/** POST /api/delete_group_tag/ (POST, as the reference has it): deletes a tag and takes it off every customer. */
export function registerDeleteGroupTag(app: TypedApp, tags: GroupTagService): void {
  app.post('/api/delete_group_tag/', {
    schema: {
      summary: 'Delete a group tag',
      description:
        "Explo's Group Tag API: deletes the tag and takes it off every customer carrying it, in one transaction; 404 when there is no tag of that name. Audited and evented as group_tag.deleted, and each customer carrying it as user_group.updated (changed: group_tags).",
      tags: GROUP_TAG_TAGS,
      body: documented(NameBody, { examples: { delete: { summary: "The reference's example", value: { name: 'tag' } } } }),
      response: {
        200: documented(TagDeletedResponse, {
          description: 'Deleted.',
          examples: { deleted: { summary: 'Deleted', value: { success: 1 } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => {
      await tags.delete(request.principal, request.body.name, request);
      return { success: 1 as const };
    },
  });
}
