import { Type } from '@sinclair/typebox';
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthenticated } from '../../../kernel/errors.js';
import type { AppMetrics } from '../../metrics/metrics.js';
import { ANY_REQUEST_ERRORS, BODY_ERRORS, errorAnswers } from '../../../platform/http/route-docs.js';
import type { TypedApp } from '../../../platform/http/typed-app.js';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * GET /metrics: Prometheus text format. Needs no API key; when a metrics token
 * is configured (UGS_METRICS_TOKEN), `Authorization: Bearer <token>`.
 */
export function registerMetrics(app: TypedApp, metrics: AppMetrics, token: string | undefined): void {
  const expected = token === undefined ? undefined : digest(token);
  const schema = {
    summary: 'Prometheus metrics',
    description:
      'The Prometheus text exposition format 0.0.4. When UGS_METRICS_TOKEN is set, needs "Authorization: Bearer <UGS_METRICS_TOKEN>" (401 otherwise).',
    tags: ['Operations'],
    // No key, or the metrics token when one is set.
    security: [{}, { metricsToken: [] }] as Record<string, string[]>[],
    response: {
      // What prom-client's registry answers; a string sent with a text type is never serialized.
      200: { description: 'The metrics.', content: { [metrics.registry.contentType]: { schema: Type.String() } } },
      ...errorAnswers(ANY_REQUEST_ERRORS, BODY_ERRORS, 'unauthenticated'),
    },
  };
  app.get('/metrics', { schema }, async (request, reply) => {
    if (expected) {
      const presented = BEARER.exec(request.headers.authorization ?? '')?.[1];
      // Digests have one length, so the comparison takes the same time whatever was sent.
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        throw unauthenticated('GET /metrics needs "Authorization: Bearer <UGS_METRICS_TOKEN>".');
      }
    }
    const body = await metrics.text();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(body);
  });
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
