import type { MetabaseService } from '../metabase-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { metabaseSettingsJson } from './metabase-view.js';
import { MetabaseSettingsResponse, METABASE_TAGS, PutMetabaseBody } from './metabase-schemas.js';
import { EXAMPLE_METABASE_SETTINGS, METABASE_SETTINGS_PATH } from './metabase-examples.js';

/** PUT /api/integrations/metabase: sets or replaces the environment's Metabase site and secret key. */
export function registerPutMetabaseSettings(app: TypedApp, metabase: MetabaseService): void {
  app.put(METABASE_SETTINGS_PATH, {
    schema: {
      summary: 'Set the Metabase settings',
      description:
        "Sets (or replaces) the environment's Metabase site and embedding secret key, sealed with the server secret and never returned. The same values again change nothing. Read-write keys; audited, with a metabase.configured event (both naming the fields that changed, never the key).",
      tags: METABASE_TAGS,
      body: documented(PutMetabaseBody, {
        examples: { set: { summary: 'Set', value: { site_url: 'https://metabase.example.com', secret_key: 'e'.repeat(64) } } },
      }),
      response: {
        200: documented(MetabaseSettingsResponse, {
          description: 'Set.',
          examples: { set: { summary: 'Set', value: { success: 1, metabase: EXAMPLE_METABASE_SETTINGS } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden'),
      },
    },
    handler: async (request) => {
      const { site_url, secret_key, max_expires_in } = request.body;
      const view = await metabase.configure(
        request.principal,
        { siteUrl: site_url, secretKey: secret_key, maxExpiresIn: max_expires_in },
        request,
      );
      return { success: 1 as const, metabase: metabaseSettingsJson(view) };
    },
  });
}
