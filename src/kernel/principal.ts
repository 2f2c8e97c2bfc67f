import type { Environment } from './environment.js';

/** `embed` keys may only mint and end embed sessions (and read the revocation feed): what a customer's page-serving backend needs. */
export const ACCESS_LEVELS = ['read-write', 'read-only', 'embed'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** Who is calling: the authenticated key, as the domain needs it. Every service takes one; api-keys authenticates it. */
export interface Principal {
  keyId: string;
  environment: Environment;
  access: Access;
}
