import type { MetabaseService } from '../metabase-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { metabaseSettingsJson } from './metabase-view.js';
import { MetabaseRemovedResponse, MetabaseSettingsResponse, METABASE_TAGS, PutMetabaseBody } from './metabase-schemas.js';

const PATH = '/api/integrations/metabase';

const EXAMPLE = {
  site_url: 'https://metabase.example.com',
  secret_key_set: true,
  max_expires_in: 3600,
  created_at: '2026-11-28T09:00:00.000Z',
  updated_at: '2026-11-28T09:00:00.000Z',
};

/** GET, PUT and DELETE /api/integrations/metabase: the key's environment's Metabase static embedding settings. */
export function registerMetabaseSettingsRoutes(app: TypedApp, metabase: MetabaseService): void {
  app.get(PATH, {
    schema: {
      summary: 'Read the Metabase settings',
      description: "The environment's Metabase site and token lifetime bound; the secret key is never returned. 404 when not configured.",
      tags: METABASE_TAGS,
      response: {
        200: documented(MetabaseSettingsResponse, {
          description: 'The settings.',
          examples: { set: { summary: 'Set', value: { success: 1, metabase: EXAMPLE } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => ({ success: 1 as const, metabase: metabaseSettingsJson(await metabase.get(request.principal)) }),
  });

  app.put(PATH, {
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
          examples: { set: { summary: 'Set', value: { success: 1, metabase: EXAMPLE } } },
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

  app.delete(PATH, {
    schema: {
      summary: 'Remove the Metabase settings',
      description:
        "Forgets the environment's Metabase site and secret key: no token is minted any more. Tokens already handed out stay valid in Metabase until they expire (rotate the key in Metabase to end them). Read-write keys; audited, with a metabase.removed event.",
      tags: METABASE_TAGS,
      response: {
        200: documented(MetabaseRemovedResponse, {
          description: 'Removed.',
          examples: { removed: { summary: 'Removed', value: { success: 1 } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => {
      await metabase.remove(request.principal, request);
      return { success: 1 as const };
    },
  });
}
