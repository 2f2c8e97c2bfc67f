import type { EmbedEnvironment } from './embed-verifier-options.js';

/**
 * What the service publishes for each environment, with its settings'
 * defaults: each environment signs with its own keys, under its own issuer
 * and audience, so a verifier configured for one refuses every token of the
 * other at the signature, before any claim is read.
 */
export const ENVIRONMENT_DEFAULTS: Readonly<Record<EmbedEnvironment, { jwksPath: string; issuer: string; audience: string }>> = {
  Customer: { jwksPath: '.well-known/jwks.json', issuer: 'user-group-service', audience: 'embedded-dashboards' },
  Testing: { jwksPath: '.well-known/jwks-testing.json', issuer: 'user-group-service-testing', audience: 'embedded-dashboards-testing' },
};
