import type { MetabaseService } from '../metabase-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { metabaseSettingsJson } from './metabase-view.js';
import { MetabaseSettingsResponse, METABASE_TAGS } from './metabase-schemas.js';
import { EXAMPLE_METABASE_SETTINGS, METABASE_SETTINGS_PATH } from './metabase-examples.js';

/** GET /api/integrations/metabase: the key's environment's Metabase settings, never the secret key. */
export function registerGetMetabaseSettings(app: TypedApp, metabase: MetabaseService): void {
  app.get(METABASE_SETTINGS_PATH, {
    schema: {
      summary: 'Read the Metabase settings',
      description: "The environment's Metabase site and token lifetime bound; the secret key is never returned. 404 when not configured.",
      tags: METABASE_TAGS,
      response: {
        200: documented(MetabaseSettingsResponse, {
          description: 'The settings.',
          examples: { set: { summary: 'Set', value: { success: 1, metabase: EXAMPLE_METABASE_SETTINGS } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => ({ success: 1 as const, metabase: metabaseSettingsJson(await metabase.get(request.principal)) }),
  });
}
