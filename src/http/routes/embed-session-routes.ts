import type { EmbedSessionService } from '../../domain/embed-session-service.js';
import {
  IntrospectBody,
  IntrospectResponse,
  MintBody,
  MintResponse,
  RevocationsQuery,
  RevocationsResponse,
  SessionIdParams,
} from '../embed-schemas.js';
import { queryValidatorCompiler } from '../query-validator.js';
import { DeleteResponse, errorResponses } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';

/** The authenticated embed session routes: mint, end, introspect, and the revocation feed. */
export function registerEmbedSessionRoutes(app: TypedApp, embedSessions: EmbedSessionService): void {
  app.post('/api/embed_sessions', {
    schema: {
      summary: 'Mint an embed session',
      description:
        'Mints a short-lived signed embed token for a group of the key\'s environment (by user_group_id or its current user_group_token), for the customer\'s page to hand to an embedded dashboard. Read-write and embed keys; read-only keys get 403; an unknown group is 404.',
      body: MintBody,
      response: { 201: MintResponse, ...errorResponses },
    },
    handler: async (request, reply) => {
      const body = request.body;
      const minted = await embedSessions.mint(request.principal, {
        userGroupId: body.user_group_id,
        userGroupToken: body.user_group_token,
        expiresIn: body.expires_in,
        dashboard: body.dashboard,
        origins: body.origins,
      });
      reply.code(201);
      return {
        success: 1 as const,
        embed_session: { token: minted.token, session_id: minted.sessionId, expires_at: minted.expiresAt, user_group_id: minted.userGroupId, team_id: minted.teamId },
      };
    },
  });

  app.delete('/api/embed_sessions/:session_id', {
    schema: {
      summary: 'End an embed session',
      description: 'Ends one session at once (introspection answers inactive; the revocation feed lists it). Ending it again is not an error; an id unknown in the key\'s environment is 404. Read-write and embed keys. Audited.',
      params: SessionIdParams,
      response: { 200: DeleteResponse, ...errorResponses },
    },
    handler: async (request) => {
      await embedSessions.revoke(request.principal, request.params.session_id, request);
      return { success: 1 as const };
    },
  });

  app.post('/api/embed_sessions/introspect', {
    schema: {
      summary: 'Introspect an embed token',
      description: 'RFC 7662: {"active":true, ...claims} when the token is signed by this service, unexpired, of the key\'s environment, not ended and its group still holds the token it was minted under; {"active":false} for anything else. Any key of the environment.',
      body: IntrospectBody,
      response: { 200: IntrospectResponse, ...errorResponses },
    },
    handler: async (request) => embedSessions.introspect(request.principal, request.body.token),
  });

  app.get('/api/embed_sessions/revocations', {
    schema: {
      summary: 'Revoked embed sessions since a cursor',
      description: 'The environment\'s revocations, oldest first: sessions ended, groups whose token was rotated or that were deleted. A verifier that checks signatures offline polls this. Entries are kept until no token they cover can be live. Any key of the environment.',
      querystring: RevocationsQuery,
      response: { 200: RevocationsResponse, ...errorResponses },
    },
    // Only a query string: its values arrive as text ("limit=5").
    validatorCompiler: queryValidatorCompiler,
    handler: async (request) => {
      const page = await embedSessions.revocations(request.principal, { after: request.query.after, limit: request.query.limit });
      return {
        success: 1 as const,
        environment: request.principal.environment,
        revocations: page.revocations.map((r) => ({
          session_id: r.sessionId,
          user_group_id: r.providedId,
          token_version: r.tokenVersion,
          reason: r.reason,
          revoked_at: r.revokedAt,
          expires_at: r.expiresAt,
        })),
        next_cursor: page.nextCursor,
      };
    },
  });
}
