import type { GroupTagService } from '../group-tag-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { GroupTagResponse, GROUP_TAG_TAGS, RenameBody } from './group-tag-schemas.js';

/** POST /api/rename_group_tag/: renames a tag on every customer carrying it. */
export function registerRenameGroupTag(app: TypedApp, tags: GroupTagService): void {
  app.post('/api/rename_group_tag/', {
    schema: {
      summary: 'Rename a group tag',
      description:
        "Explo's Group Tag API: renames the tag and every customer's mention of it, in one transaction (404 when there is no tag of that name, 409 conflict when new_name is another tag's). Audited and evented as group_tag.renamed, and each customer carrying it as user_group.updated (changed: group_tags).",
      tags: GROUP_TAG_TAGS,
      body: documented(RenameBody, {
        examples: { rename: { summary: "The reference's example", value: { name: 'tag', new_name: 'new tag' } } },
      }),
      response: {
        200: documented(GroupTagResponse, {
          description: 'Renamed; the answer holds the new name.',
          examples: { renamed: { summary: 'Renamed', value: { success: 1, group_tag: { name: 'new tag' } } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request) => {
      await tags.rename(request.principal, request.body.name, request.body.new_name, request);
      return { success: 1 as const, group_tag: { name: request.body.new_name } };
    },
  });
}
