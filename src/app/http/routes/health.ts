import { ServiceError } from '../../../kernel/errors.js';
import type { StoreHealth } from '../../../kernel/store-health.js';
import type { StoreClock } from '../../../kernel/store-clock.js';
import { ANY_REQUEST_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../../../platform/http/route-docs.js';
import { StatusResponse } from '../../../platform/http/schemas.js';
import type { TypedApp } from '../../../platform/http/typed-app.js';

/**
 * GET /healthz: the process is up. GET /readyz: the store answers too, and this process's clock is close enough
 * to the store's to mint. Neither needs a key.
 */
export function registerHealth(app: TypedApp, store: StoreHealth, clock: Pick<StoreClock, 'assertWithinBound'>): void {
  app.get('/healthz', { schema: operation('Liveness', 'The process is up.', 'ok') }, async () => ({
    success: 1 as const,
    status: 'ok',
  }));
  app.get(
    '/readyz',
    {
      schema: operation(
        'Readiness',
        "The process is up, its store answers and its clock is within UGS_CLOCK_OFFSET_MAX_MS of the store's; 503 otherwise.",
        'ready',
      ),
    },
    async (request) => {
      try {
        await store.ping();
      } catch (error) {
        // The store's own account (its file gone, its disk full) says more than "not answering".
        if (error instanceof ServiceError && error.code === 'unavailable') throw error;
        request.log.warn({ err: error }, 'store is not answering');
        throw new ServiceError('unavailable', 'The store is not answering; retry shortly.');
      }
      await clock.assertWithinBound();
      return { success: 1 as const, status: 'ready' };
    },
  );
}

function operation(summary: string, description: string, status: string) {
  return {
    summary,
    description,
    tags: ['Operations'],
    security: [],
    response: {
      200: documented(StatusResponse, { description: 'Up.', examples: { [status]: { summary, value: { success: 1, status } } } }),
      ...errorAnswers(ANY_REQUEST_ERRORS, BODY_ERRORS),
    },
  };
}
