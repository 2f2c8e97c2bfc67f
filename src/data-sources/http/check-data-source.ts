import rateLimit from '@fastify/rate-limit';
import type { DataSourceService } from '../data-source-service.js';
import { ServiceError } from '../../kernel/errors.js';
import { ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../platform/http/route-docs.js';
import type { TypedApp } from '../../platform/http/typed-app.js';
import { CheckResponse, DataSourceIdParams } from './data-source-schemas.js';
import { DATA_SOURCE_TAGS } from './data-source-examples.js';
import { checkJson } from './data-source-view.js';

/** Checks per API key per minute: each opens a connection from this host, so a key cannot use it to scan a network. */
export const CHECKS_PER_KEY_PER_MINUTE = 10;

/** POST /api/data_sources/{id}/check: connects once and says what it found, as categories. */
export async function registerCheckDataSource(app: TypedApp, dataSources: DataSourceService): Promise<void> {
  await app.register(async (scope: TypedApp) => {
    await scope.register(rateLimit, {
      global: false,
      hook: 'preHandler',
      keyGenerator: (request) => request.principal.keyId,
      errorResponseBuilder: (_request, context) =>
        new ServiceError('rate_limited', `This API key checked ${context.max} data sources this minute; retry in ${context.after}.`, {
          retryAfterSeconds: Math.ceil(context.ttl / 1000),
        }),
    });
    scope.post('/api/data_sources/:data_source_id/check', {
      config: { rateLimit: { max: CHECKS_PER_KEY_PER_MINUTE, timeWindow: 60_000 } },
      schema: {
        summary: 'Check a data source',
        description: `Connects to the data source once (a few seconds at most) and answers what it found, as categories, never the server's own text: reachable, authenticated, the server version, whether the role is a superuser or has BYPASSRLS (row policies bind neither), whether TLS is on. Private and loopback addresses are allowed (databases live there); link-local and cloud metadata addresses, and this service's own listening ports, are refused (failure address_refused). ${CHECKS_PER_KEY_PER_MINUTE} checks per key per minute. Read-write keys; audited (the outcome's category in the record's fields).`,
        tags: DATA_SOURCE_TAGS,
        params: DataSourceIdParams,
        response: {
          200: documented(CheckResponse, {
            description: 'What the check found (a failed connection is a 200 with its failure category).',
            examples: {
              ok: {
                summary: 'Connected as a plain role',
                value: {
                  success: 1,
                  check: {
                    reachable: true,
                    authenticated: true,
                    server_version: '17.2',
                    superuser: false,
                    bypass_rls: false,
                    tls: true,
                    failure: null,
                    duration_ms: 38,
                  },
                },
              },
            },
          }),
          ...errorAnswers(ANY_REQUEST_ERRORS, API_KEY_ERRORS, BODY_ERRORS, 'forbidden', 'not_found'),
        },
      },
      handler: async (request) => ({
        success: 1 as const,
        check: checkJson(await dataSources.check(request.principal, request.params.data_source_id, request)),
      }),
    });
  });
}
