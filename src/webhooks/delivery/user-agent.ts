import { packageManifest } from '../../platform/package-root.js';

let cached: string | undefined;

/** `user-group-service-webhooks/<version>`: what receivers see in a delivery's user-agent (the version is package.json's). */
export function webhookUserAgent(): string {
  cached ??= `user-group-service-webhooks/${packageManifest().version}`;
  return cached;
}
