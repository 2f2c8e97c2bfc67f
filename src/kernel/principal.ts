import type { Environment } from './environment.js';

/**
 * `embed` keys may only mint and end embed sessions (and read the revocation feed): what a customer's page-serving
 * backend needs. `dashboard` keys read data sources with their passwords and the revocation feed: what the
 * dashboard layer's data router needs, and nothing else.
 */
export const ACCESS_LEVELS = ['read-write', 'read-only', 'embed', 'dashboard'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** Who is calling: the authenticated key, as the domain needs it. Every service takes one; api-keys authenticates it. */
export interface Principal {
  keyId: string;
  environment: Environment;
  access: Access;
}

/**
 * What a key may do, listed per access level so a new level is allowed exactly what it lists (never what a
 * deny-list forgot): `read` groups, events, usage, webhooks and data sources (without secrets); `write` them;
 * `mint` and end embed sessions; `data-source-secrets`: read data sources with their passwords.
 */
export type Capability = 'read' | 'write' | 'mint' | 'data-source-secrets';

const CAPABILITIES: Readonly<Record<Access, readonly Capability[]>> = {
  'read-write': ['read', 'write', 'mint'],
  'read-only': ['read'],
  embed: ['mint'],
  dashboard: ['data-source-secrets'],
};

export function may(principal: Principal, capability: Capability): boolean {
  return CAPABILITIES[principal.access].includes(capability);
}

/** What a key of this access may do, as a refusal tells the caller. */
export const ACCESS_SCOPE: Readonly<Record<Access, string>> = {
  'read-write': 'it may read and change everything in its environment',
  'read-only': 'it may only read',
  embed: 'it may only mint and end embed sessions',
  dashboard: 'it may only read data sources with their passwords and the revocation feed',
};

/**
 * The refusal's text for a key that may not read `what`: "This API key is an embed key: it may only mint and end
 * embed sessions; use a read-write or read-only key for user groups."
 */
export function readRefusal(principal: Principal, what: string): string {
  const article = principal.access === 'embed' ? 'an' : 'a';
  return `This API key is ${article} ${principal.access} key: ${ACCESS_SCOPE[principal.access]}; use a read-write or read-only key for ${what}.`;
}
