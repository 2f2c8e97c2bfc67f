import type { Environment } from '../kernel/environment.js';
import { invalidRequest } from '../kernel/errors.js';

export const METABASE_LIMITS = {
  /** A Metabase token's lifetime when a mint does not say (Metabase's own examples use ten minutes). */
  expiresInDefault: 600,
  expiresInMin: 60,
  /** The longest lifetime an environment may allow: a signed Metabase token cannot be ended before its exp. */
  expiresInMax: 86_400,
  /** The longest lifetime allowed when the settings do not say. */
  maxExpiresInDefault: 3600,
  siteUrlMaxLength: 2048,
  /** The most the wire takes before checkedSecret says what a key looks like. */
  secretMaxLength: 512,
} as const;

/** An environment's Metabase static embedding, as stored: the embedding secret key only sealed (metabaseSecretSealContext). */
export interface MetabaseSettingsRecord {
  environment: Environment;
  /** Where Metabase answers, e.g. https://metabase.example.com (no trailing slash, no query). */
  siteUrl: string;
  secretCiphertext: Buffer;
  /** The longest lifetime a mint may ask for, in seconds. */
  maxExpiresIn: number;
  createdAt: string;
  updatedAt: string;
}

/** What callers see: never the secret, only that one is set. */
export interface MetabaseSettingsView {
  siteUrl: string;
  secretKeySet: true;
  maxExpiresIn: number;
  createdAt: string;
  updatedAt: string;
}

export function toMetabaseSettingsView(record: MetabaseSettingsRecord): MetabaseSettingsView {
  return {
    siteUrl: record.siteUrl,
    secretKeySet: true,
    maxExpiresIn: record.maxExpiresIn,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The sealing context of an environment's Metabase secret: a ciphertext opens only where it was sealed. */
export function metabaseSecretSealContext(environment: Environment): string {
  return `metabase:${environment}`;
}

/** The site URL as stored: http(s), no credentials, query or fragment, no trailing slash. */
export function checkedSiteUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest('"site_url" must be an absolute URL, e.g. https://metabase.example.com.');
  }
  if (value.length > METABASE_LIMITS.siteUrlMaxLength)
    throw invalidRequest(`"site_url" is longer than ${METABASE_LIMITS.siteUrlMaxLength} characters.`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidRequest('"site_url" must be an http or https URL.');
  if (url.username !== '' || url.password !== '') throw invalidRequest('"site_url" must not carry a user name or password.');
  if (url.search !== '' || url.hash !== '') throw invalidRequest('"site_url" must not carry a query or a fragment.');
  return url.href.replace(/\/+$/, '');
}

/**
 * Metabase's embedding secret key as Metabase itself stores it: 64 lowercase hex characters (its setter refuses
 * anything else: metabase.util/hexadecimal-string?, #"[0-9a-f]{64}"). Another value cannot be the key Metabase
 * verifies with, so it is refused here rather than signing tokens Metabase would reject.
 */
export function checkedSecret(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value)) {
    throw invalidRequest(
      `"secret_key" must be Metabase's embedding secret key (Admin settings, Embedding, Static embedding): 64 lowercase hexadecimal characters.`,
    );
  }
  return value;
}

export function checkedMaxExpiresIn(value: number | undefined): number {
  if (value === undefined) return METABASE_LIMITS.maxExpiresInDefault;
  const { expiresInMin: min, expiresInMax: max } = METABASE_LIMITS;
  if (!Number.isInteger(value) || value < min || value > max)
    throw invalidRequest(`"max_expires_in" must be a whole number of seconds from ${min} to ${max}.`);
  return value;
}
