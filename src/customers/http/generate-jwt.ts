import type { CustomerEmbedTokens } from '../customer-embed-token.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CUSTOMER_TAGS, GenerateJwtBody, GenerateJwtResponse } from './customer-schemas.js';

/** null, as Explo's generated clients send it, is a field not given. */
const given = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/** POST /api/generate_jwt/: an embed session for a customer. */
export function registerGenerateJwt(app: TypedApp, tokens: CustomerEmbedTokens): void {
  app.post('/api/generate_jwt/', {
    schema: {
      summary: 'Generate an embed JWT for a customer',
      description:
        "Explo's Customer API: an embed session of this service for the customer provided_id names (the token POST /api/embed_sessions mints, verified with the environment's JWKS). embed_id becomes its dashboard (dsh), embed_origin its only origin (org; the trailing / is dropped), expiration (ISO 8601 duration, PT1M to PT24H, default 24 hours) its lifetime; chart_id, rb_allowed_features and disable_editable_section_editing are carried as the claims cht, rbc and des for the dashboard layer, which this service does not enforce. key_id is a 400 unless it is the environment's active signing key's kid: sessions are signed with the environment's key set, not per-key secrets. Read-write and embed keys; counted in usage as a session.",
      tags: CUSTOMER_TAGS,
      body: documented(GenerateJwtBody, {
        examples: {
          generate: {
            summary: "The reference's example, without key_id",
            value: {
              provided_id: 'customer_1',
              embed_id: 'abcde',
              expiration: 'PT1H',
              rb_allowed_features: ['flt', 'srt'],
              disable_editable_section_editing: true,
              embed_origin: 'https://your-domain.com/',
            },
          },
        },
      }),
      response: {
        200: documented(GenerateJwtResponse, {
          description: 'The session token.',
          examples: {
            generated: {
              summary: 'Generated',
              value: { success: 1, jwt: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjdXN0b21lcl8xIn0.c2lnbmF0dXJl' },
            },
          },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
      },
    },
    handler: async (request) => {
      const b = request.body;
      const minted = await tokens.generate(request.principal, {
        providedId: b.provided_id,
        embedId: given(b.embed_id),
        expiration: given(b.expiration),
        keyId: given(b.key_id),
        chartId: given(b.chart_id),
        rbAllowedFeatures: given(b.rb_allowed_features),
        disableEditableSectionEditing: given(b.disable_editable_section_editing),
        embedOrigin: given(b.embed_origin),
      });
      return { success: 1 as const, jwt: minted.token };
    },
  });
}
