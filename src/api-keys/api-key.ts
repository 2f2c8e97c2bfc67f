import { randomBytes } from 'node:crypto';
import type { Environment } from '../kernel/environment.js';
import { secretFormat } from '../secrets/secret-format.js';

/** API keys: `ugsk_` then 49 base62 characters. */
export const apiKeyFormat = secretFormat('ugsk_');

/** `embed` keys may only mint and end embed sessions (and read the revocation feed): what a customer's page-serving backend needs. */
export const ACCESS_LEVELS = ['read-write', 'read-only', 'embed'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** An API key as stored: never the key itself, only its hash. */
export interface ApiKeyRecord {
  id: string;
  name: string | null;
  environment: Environment;
  access: Access;
  keyHash: Buffer;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** Who is calling: the authenticated key, as the domain needs it. */
export interface Principal {
  keyId: string;
  environment: Environment;
  access: Access;
}

/** Public, non-secret identifier of a key, shown by `ugs keys list` and used by `ugs keys revoke`. */
export function newApiKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

/** True when `value` has the shape of a key id (not of a key): only such values may be echoed back. */
export function isApiKeyId(value: string): boolean {
  return /^key_[0-9a-f]{16}$/.test(value);
}
