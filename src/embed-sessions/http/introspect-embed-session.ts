import type { EmbedSessionService } from '../embed-session-service.js';
import { IntrospectBody, IntrospectResponse } from './embed-schemas.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { TAGS, EXAMPLE_JWT } from './embed-session-docs.js';

/** Introspect an embed token. */
export function registerIntrospectEmbedSession(app: TypedApp, embedSessions: EmbedSessionService): void {
  app.post('/api/embed_sessions/introspect', {
    schema: {
      summary: 'Introspect an embed token',
      description:
        'RFC 7662: {"active":true, ...claims} when the token is signed by this service, unexpired, of the key\'s environment, not ended and its group still holds the token it was minted under; {"active":false} for anything else. Read-write, read-only and embed keys of the environment (not dashboard keys).',
      tags: TAGS,
      body: documented(IntrospectBody, { examples: { token: { summary: 'A token', value: { token: EXAMPLE_JWT } } } }),
      response: {
        200: documented(IntrospectResponse, {
          description: 'Whether the token is live, and its claims when it is.',
          examples: { inactive: { summary: 'Not live', value: { active: false } } },
        }),
        ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden'),
      },
    },
    handler: async (request) => embedSessions.introspect(request.principal, request.body.token),
  });
}
