import type { FastifyInstance } from 'fastify';
import type { AuditStore } from '../../audit/audit-store.js';
import type { EventService } from '../event-service.js';

/** Rows shown of each list; the audit log in full is `ugs audit`'s, the events' GET /api/events'. */
const SHOWN = 50;

/** GET /console/activity: the audit trail and the events of the session's environment, newest first, of one group when `group` is given. */
export function registerActivityPage(app: FastifyInstance, audit: AuditStore, events: EventService): void {
  app.get<{ Querystring: { group?: string } }>('/activity', { schema: { hide: true } }, async (request, reply) => {
    const principal = request.principal;
    const group = request.query.group?.trim() || undefined;
    const [records, listed] = await Promise.all([
      audit.listAuditRecords({
        environment: principal.environment,
        newestFirst: true,
        limit: SHOWN,
        ...(group === undefined ? {} : { group: { providedId: group } }),
      }),
      events.recent(principal, { limit: SHOWN, userGroupId: group }),
    ]);
    return reply.view('activity', {
      title: 'Activity',
      session: request.session,
      csrf: reply.generateCsrf(),
      group: group ?? '',
      audit: records,
      events: listed,
    });
  });
}
