import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** `user-group-service-webhooks/<version>`: what receivers see in a delivery's user-agent (the version is package.json's). */
export function webhookUserAgent(): string {
  cached ??= `user-group-service-webhooks/${packageVersion()}`;
  return cached;
}

function packageVersion(): string {
  // dist/src/webhooks/… or src/webhooks/…: the nearest package.json up the tree is the service's.
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return '0.0.0';
    dir = parent;
  }
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}
