import type { FastifyInstance } from 'fastify';
import { formField } from '../../console/pages/form-body-parser.js';
import { ServiceError } from '../../kernel/errors.js';
import type { GroupPage } from '../../user-groups/pages/group-page-routes.js';
import { groupIdOf, groupRoutes, groupUrl } from '../../user-groups/pages/group-urls.js';
import type { CustomerService } from '../customer-service.js';

/**
 * "Save" of the Customer API fields on a group's page: emails (one per line or comma-separated), the tags ticked,
 * the demo flag and a level, replaced as POST /api/update_customer/ replaces them, through the same service (audited
 * and evented as a user_group.updated of the session's key, with the request as its origin). Posted with the session's CSRF token; a
 * read-only session sees no form, and the service refuses it anyway. A refusal shows the page again, as typed.
 */
export function registerCustomerActions(app: FastifyInstance, customers: CustomerService, page: GroupPage): void {
  const post = { schema: { hide: true }, preHandler: app.csrfProtection };
  for (const url of groupRoutes('customer')) {
    app.post(url, post, async (request, reply) => {
      const userGroupId = groupIdOf(request);
      const body = (request.body ?? {}) as Record<string, unknown>;
      // One checkbox per tag, each its own field (tags.0, tags.1, …): the form parser keeps one value per name.
      const tags = Object.entries(body)
        .filter(([name, value]) => /^tags\.\d+$/.test(name) && typeof value === 'string')
        .map(([, value]) => value as string);
      const values = {
        emails: formField(body, 'emails'),
        tags,
        demo: formField(body, 'demo') === '1',
        level: formField(body, 'level'),
      };
      // A comma ends an address too: a list pasted from a mail client's To: line is one line of them.
      const emails = values.emails
        .split(/[\r\n,]+/)
        .map((address) => address.trim())
        .filter((address) => address !== '');
      try {
        await customers.update(
          request.principal,
          {
            providedId: userGroupId,
            emails,
            groupTags: tags,
            isDemoGroup: values.demo,
            ...(values.level === '' ? {} : { hierarchyLevelName: values.level }),
          },
          request,
        );
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== 'invalid_request') throw error;
        return page.render(request, reply.code(400), userGroupId, { customerForm: { values, error: error.message } });
      }
      return reply.redirect(groupUrl(userGroupId, undefined, { done: 'saved' }), 303);
    });
  }
}
