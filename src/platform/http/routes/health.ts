import { ServiceError } from '../../../kernel/errors.js';
import type { StoreHealth } from '../../../kernel/store-health.js';
import { ANY_REQUEST_ERRORS, BODY_ERRORS, documented, errorAnswers } from '../route-docs.js';
import { StatusResponse } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';

/** GET /healthz: the process is up. GET /readyz: the store answers too. Neither needs a key. */
export function registerHealth(app: TypedApp, store: StoreHealth): void {
  app.get('/healthz', { schema: operation('Liveness', 'The process is up.', 'ok') }, async () => ({
    success: 1 as const,
    status: 'ok',
  }));
  app.get(
    '/readyz',
    { schema: operation('Readiness', 'The process is up and its store answers; 503 when the store does not.', 'ready') },
    async (request) => {
      try {
        await store.ping();
      } catch (error) {
        // The store's own account (its file gone, its disk full) says more than "not answering".
        if (error instanceof ServiceError && error.code === 'unavailable') throw error;
        request.log.warn({ err: error }, 'store is not answering');
        throw new ServiceError('unavailable', 'The store is not answering; retry shortly.');
      }
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
