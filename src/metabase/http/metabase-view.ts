import type { MintedMetabaseToken } from '../metabase-service.js';
import type { MetabaseSettingsView } from '../metabase-settings.js';

/** The settings as the wire (and `ugs metabase show --json`) shows them: never the secret key, only that one is set. */
export function metabaseSettingsJson(view: MetabaseSettingsView) {
  return {
    site_url: view.siteUrl,
    secret_key_set: true as const,
    max_expires_in: view.maxExpiresIn,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

/** A minted token as the wire (and `ugs metabase mint --json`) shows it. */
export function metabaseTokenJson(minted: MintedMetabaseToken) {
  return {
    token: minted.token,
    url: minted.url,
    expires_at: minted.expiresAt,
    resource: minted.resource,
    params: minted.params,
  };
}
