import { ServiceError } from '../../domain/errors.js';
import type { StoreHealth } from '../../domain/store-health.js';
import { errorResponses, StatusResponse } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';

/** GET /healthz: the process is up. GET /readyz: the store answers too. Neither needs a key. */
export function registerHealth(app: TypedApp, store: StoreHealth): void {
  app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: StatusResponse } } }, async () => ({
    success: 1 as const,
    status: 'ok',
  }));
  app.get('/readyz', { schema: { summary: 'Readiness', response: { 200: StatusResponse, ...errorResponses } } }, async (request) => {
    try {
      await store.ping();
    } catch (error) {
      // The store's own account (its file gone, its disk full) says more than "not answering".
      if (error instanceof ServiceError && error.code === 'unavailable') throw error;
      request.log.warn({ err: error }, 'store is not answering');
      throw new ServiceError('unavailable', 'The store is not answering; retry shortly.');
    }
    return { success: 1 as const, status: 'ready' };
  });
}
