import type { StoreClockSource } from './store-clock.js';

/** Whether the store answers: what GET /readyz asks. A port, implemented by each database's store. */
export interface StoreHealth extends StoreClockSource {
  /**
   * Resolves when the database answers; rejects otherwise, with a
   * ServiceError `unavailable` when the store can say why (its file
   * deleted, its disk full).
   */
  ping(): Promise<void>;
}
