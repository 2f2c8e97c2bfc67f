import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PackageManifest {
  version: string;
  description?: string;
}

let root: string | undefined;
let manifest: PackageManifest | undefined;

/**
 * The folder of the service's package.json: the nearest one up the tree from
 * this file, whether it runs as dist/src/… in a checkout or inside an
 * installed package. Anchors what must not depend on the working directory
 * (the default data dir).
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  root = dir;
  return root;
}

/** The service's package.json: its version for `ugs --version`, the OpenAPI document and the webhook user-agent. */
export function packageManifest(): PackageManifest {
  manifest ??= JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as PackageManifest;
  return manifest;
}
