import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';
import { METABASE_LIMITS, type MetabaseSettingsView } from '../metabase-settings.js';
import type { MetabaseService } from '../metabase-service.js';

/**
 * GET /console/metabase: the environment's Metabase settings as GET /api/integrations/metabase shows them (the
 * site, "secret key set", the longest lifetime), or that there are none. Read only: the key is set through the API or
 * `ugs metabase configure`, so no form ever carries it.
 */
export function registerMetabasePage(app: FastifyInstance, metabase: MetabaseService): void {
  app.get('/metabase', { schema: { hide: true } }, async (request, reply) => {
    let settings: MetabaseSettingsView | null = null;
    try {
      settings = await metabase.get(request.principal);
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
    }
    return reply.view('metabase', {
      title: 'Metabase',
      session: request.session,
      csrf: reply.generateCsrf(),
      environment: request.principal.environment,
      settings,
      defaultExpiresIn: METABASE_LIMITS.expiresInDefault,
    });
  });
}
