import type { Environment } from '../../kernel/environment.js';

/**
 * Where each environment publishes its embed token signing keys. Customer's
 * URL is the one verifiers have always used; Testing's keys are published
 * apart, so that a verifier of Customer tokens never holds a key that signs
 * Testing ones.
 */
export const JWKS_PATHS: Readonly<Record<Environment, string>> = {
  Customer: '/.well-known/jwks.json',
  Testing: '/.well-known/jwks-testing.json',
};
