import { randomBytes } from 'node:crypto';
import type { Environment } from '../kernel/environment.js';
import type { Access } from '../kernel/principal.js';
import { SECRET_PREFIXES, secretFormat } from '../secrets/secret-format.js';

/** API keys: `ugsk_` then 49 base62 characters. */
export const apiKeyFormat = secretFormat(SECRET_PREFIXES.apiKey);

/** A key's access, which the principal it authenticates carries (kernel/principal.ts). */
export { ACCESS_LEVELS, type Access } from '../kernel/principal.js';

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

/** Public, non-secret identifier of a key, shown by `ugs keys list` and used by `ugs keys revoke`. */
export function newApiKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

/** True when `value` has the shape of a key id (not of a key): only such values may be echoed back. */
export function isApiKeyId(value: string): boolean {
  return /^key_[0-9a-f]{16}$/.test(value);
}
