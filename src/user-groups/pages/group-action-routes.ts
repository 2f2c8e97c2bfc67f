import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';
import { CONSOLE_PATH } from '../../console/pages/console-session-hook.js';
import { formField } from '../../console/pages/form-body-parser.js';
import type { UserGroupService } from '../user-group-service.js';
import { fieldOfServiceError, parseGroupForm } from './group-form.js';
import type { GroupPage } from './group-page-routes.js';
import { groupIdOf, groupRoutes, groupUrl, type GroupAction } from './group-urls.js';

const CHILDREN_CONFLICT = 'This group has child groups: tick "Delete its whole subtree" to delete them with it, or delete them first.';

/**
 * The group's forms: edit, rotate, delete (the preview's is embed-sessions', embed-preview-routes.ts). Each posts with the
 * session's CSRF token, and calls the service as the session's key, with the
 * request as the change's origin, so the audit log reads as for the API. A
 * read-only session sees none of these forms, and the service refuses it anyway.
 */
export function registerGroupActions(app: FastifyInstance, userGroups: UserGroupService, page: GroupPage): void {
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  const onPost = (action: GroupAction, handler: (request: FastifyRequest, reply: FastifyReply, id: string) => Promise<FastifyReply>) => {
    for (const url of groupRoutes(action)) app.post(url, post, async (request, reply) => handler(request, reply, groupIdOf(request)));
  };

  onPost('edit', async (request, reply, id) => {
    const values = {
      name: formField(request.body, 'name'),
      mapping: formField(request.body, 'mapping'),
      properties: formField(request.body, 'properties'),
    };
    const parsed = parseGroupForm(id, values);
    if ('errors' in parsed) return page.render(request, reply.code(400), id, { values, errors: parsed.errors });
    try {
      await userGroups.update(request.principal, parsed.input, request);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== 'invalid_request') throw error;
      return page.render(request, reply.code(400), id, { values, errors: { [fieldOfServiceError(error)]: error.message } });
    }
    return reply.redirect(groupUrl(id, undefined, { done: 'saved' }), 303);
  });

  onPost('rotate', async (request, reply, id) => {
    const current = await userGroups.getWithToken(request.principal, id);
    await userGroups.rotateToken(request.principal, current.token, request);
    return reply.redirect(groupUrl(id, undefined, { done: 'rotated' }), 303);
  });

  onPost('delete', async (request, reply, id) => {
    if (formField(request.body, 'confirm') !== id) {
      return page.render(request, reply.code(400), id, {
        errors: { confirm: `Type the user_group_id, ${JSON.stringify(id)}, exactly to delete the group.` },
      });
    }
    const cascade = formField(request.body, 'cascade') === '1';
    try {
      await userGroups.delete(request.principal, id, request, { cascade });
    } catch (error) {
      // Children (perhaps added since the page was drawn): the form again, open, saying what the box does.
      if (!(error instanceof ServiceError) || error.code !== 'conflict') throw error;
      return page.render(request, reply.code(409), id, { errors: { cascade: CHILDREN_CONFLICT } });
    }
    return reply.redirect(`${CONSOLE_PATH}/groups?done=deleted`, 303);
  });
}
