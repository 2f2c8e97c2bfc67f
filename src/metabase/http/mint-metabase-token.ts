import type { MetabaseService } from '../metabase-service.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { metabaseTokenJson } from './metabase-view.js';
import { MintMetabaseTokenBody, MintMetabaseTokenResponse, METABASE_TAGS } from './metabase-schemas.js';

/** POST /api/integrations/metabase/embed_tokens: a static embedding token for one group, its locked parameters bound to the group. */
export function registerMintMetabaseToken(app: TypedApp, metabase: MetabaseService): void {
  app.post('/api/integrations/metabase/embed_tokens', {
    schema: {
      summary: 'Mint a Metabase static embedding token',
      description:
        "Signs, with the environment's Metabase secret key, the token Metabase's static embedding verifies ({resource, params, exp}, HS256; no other claim), its locked parameters filled from the group (its id, its subtree's ids, its effective properties) or the viewer's attributes, never from a value the caller writes. At least one parameter must come from the group; a missing property or attribute, or an empty list (which Metabase reads as no filter), is a 400: no token leaves without its filter. The resource is a positive id or Metabase's Entity ID. 409 when Metabase is not configured; 404 when the group is not in the key's environment. Read-write and embed keys; audited (metabase.token_minted: the resource, each parameter's source, the lifetime); counted in the group's usage as a session; no event. Metabase cannot end the token before expires_at: not by rotating the group's token, ending its sessions or deleting it; regenerating the key in Metabase (then PUT it here) ends them all.",
      tags: METABASE_TAGS,
      body: documented(MintMetabaseTokenBody, {
        examples: {
          dashboard: {
            summary: "A dashboard locked to the group's rows and region",
            value: { user_group_id: 'acme', resource: { dashboard: 12 }, params: { tenant: 'user_group_id', region: 'property:region' } },
          },
        },
      }),
      response: {
        201: documented(MintMetabaseTokenResponse, { description: 'Minted.' }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found', 'conflict'),
      },
    },
    handler: async (request, reply) => {
      const { user_group_id, resource, params, viewer, expires_in } = request.body;
      const minted = await metabase.mint(
        request.principal,
        { userGroupId: user_group_id, resource, params, viewer, expiresIn: expires_in },
        request,
      );
      reply.code(201);
      reply.header('cache-control', 'no-store');
      return { success: 1 as const, metabase_token: metabaseTokenJson(minted) };
    },
  });
}
