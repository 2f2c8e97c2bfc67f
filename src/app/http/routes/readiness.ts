import { ServiceError } from '../../../kernel/errors.js';
import type { StoreHealth } from '../../../kernel/store-health.js';
import type { StoreClock } from '../../../kernel/store-clock.js';
import type { TypedApp } from '../../../platform/http/typed-app.js';
import { healthOperation } from './health-docs.js';

/**
 * GET /readyz: the process is up, the store answers too, and this process's clock is close enough to the store's
 * to mint. Needs no key.
 */
export function registerReadiness(app: TypedApp, store: StoreHealth, clock: Pick<StoreClock, 'assertWithinBound'>): void {
  app.get(
    '/readyz',
    {
      schema: healthOperation(
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
