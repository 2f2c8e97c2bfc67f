import type { Principal } from '../kernel/principal.js';
import type { Environment } from '../kernel/environment.js';

/**
 * Who the CLI acts as: the operator, with read-write rights in the environment
 * named. Its changes are audited under the key id `cli`, so `ugs audit` tells
 * them from API calls.
 */
export function operator(environment: Environment): Principal {
  return { keyId: 'cli', environment, access: 'read-write' };
}
