import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formField } from '../../console/pages/form-body-parser.js';
import { ServiceError } from '../../kernel/errors.js';
import type { GroupTagService } from '../group-tag-service.js';

const NOTICES: Record<string, string> = {
  created: 'Tag created.',
  renamed: 'Tag renamed on every group carrying it.',
  deleted: 'Tag deleted and taken off every group carrying it.',
};

/**
 * GET /console/group-tags: the environment's group tags (the Customer API's) with how many groups carry each, and
 * for a read-write session the forms that create, rename and delete them through the same service as
 * POST /api/create_group_tag/ and the rest (audited and evented with the session's key). A delete is confirmed by
 * typing the tag's name. A refusal (a taken name, a tag gone meanwhile) shows the page again saying why.
 */
export function registerGroupTagPages(app: FastifyInstance, groupTags: GroupTagService): void {
  const render = async (request: FastifyRequest, reply: FastifyReply, extras: { error?: string; notice?: string | null } = {}) => {
    const [tags, carriers] = await Promise.all([groupTags.list(request.principal), groupTags.countCarriers(request.principal)]);
    return reply.view('group-tags', {
      title: 'Group tags',
      session: request.session,
      csrf: reply.generateCsrf(),
      writable: request.principal.access === 'read-write',
      environment: request.principal.environment,
      tags: tags.map((tag) => ({ ...tag, groups: carriers.get(tag.name) ?? 0 })),
      error: extras.error ?? null,
      notice: extras.notice ?? null,
    });
  };

  app.get<{ Querystring: { done?: string } }>('/group-tags', { schema: { hide: true } }, async (request, reply) =>
    render(request, reply, { notice: NOTICES[request.query.done ?? ''] ?? null }),
  );

  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  const action = (path: string, done: string, change: (request: FastifyRequest) => Promise<unknown>) =>
    app.post(path, post, async (request, reply) => {
      try {
        await change(request);
      } catch (error) {
        if (!(error instanceof ServiceError) || !['invalid_request', 'not_found', 'conflict'].includes(error.code)) throw error;
        return render(request, reply.code(error.code === 'invalid_request' ? 400 : error.code === 'not_found' ? 404 : 409), {
          error: error.message,
        });
      }
      return reply.redirect(`/console/group-tags?done=${done}`, 303);
    });

  action('/group-tags/create', 'created', (request) => groupTags.create(request.principal, formField(request.body, 'name'), request));
  action('/group-tags/rename', 'renamed', (request) =>
    groupTags.rename(request.principal, formField(request.body, 'name'), formField(request.body, 'new_name'), request),
  );
  action('/group-tags/delete', 'deleted', async (request) => {
    const name = formField(request.body, 'name');
    if (formField(request.body, 'confirm') !== name) {
      throw new ServiceError('invalid_request', `Type the tag's name, ${JSON.stringify(name)}, exactly to delete it.`);
    }
    return groupTags.delete(request.principal, name, request);
  });
}
