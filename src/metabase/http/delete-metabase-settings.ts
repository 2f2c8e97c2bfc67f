import type { MetabaseService } from '../metabase-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { MetabaseRemovedResponse, METABASE_TAGS } from './metabase-schemas.js';
import { METABASE_SETTINGS_PATH } from './metabase-examples.js';

/** DELETE /api/integrations/metabase: forgets the environment's Metabase settings. */
export function registerDeleteMetabaseSettings(app: TypedApp, metabase: MetabaseService): void {
  app.delete(METABASE_SETTINGS_PATH, {
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
