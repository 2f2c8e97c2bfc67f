import type { ConnectionChecker } from '../data-sources/connection-check.js';
import { ServiceError } from '../kernel/errors.js';

/** INTERIM until the PostgreSQL checker lands (src/data-sources/check/): answers 503. */
export function connectionChecker(_options: { ownPorts: () => number[] }): ConnectionChecker {
  return {
    check: async () => {
      throw new ServiceError('unavailable', 'The connection check is not available yet.');
    },
  };
}
