import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildDashboardPackage } from '../../scripts/build-packages.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { HANDLER_ERROR_MODULE, type CheckAuth, type HandlerErrorClass } from './cube-gateway.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The example files docs/integrations/cube.md shows, under examples/cube. */
export const CUBE_EXAMPLE_FILES = ['cube.js', 'query-rewrite.js', 'model/orders.yml'] as const;

/** The configuration cube.js exports, as Cube reads it. */
export interface CubeConfig {
  checkAuth: CheckAuth;
  queryRewrite: (query: object, context: { securityContext?: unknown }) => object;
}

export interface CubeFolder {
  path: string;
  config: CubeConfig;
  /** Cube's CubejsHandlerError as the folder resolves it: the class cube.js hands the helper. */
  CubejsHandlerError: HandlerErrorClass;
  remove(): void;
}

/**
 * Cube's conf folder as its Docker image has it (packages/cubejs-docker/latest.Dockerfile: Cube runs in /cube/conf, its
 * own packages in node_modules above it), with examples/cube's files, Cube's gateway module (its error class, the
 * stand-in of cube-gateway.ts), and the dashboard package as `npm install` puts it (built from this build's dist/src,
 * its dependency jose beside it). cube.js is loaded as Cube loads it (packages/cubejs-server/src/server/container.ts,
 * loadConfigurationFromFile: import() of <cwd>/cube.js, its default export), with UGS_URL and UGS_API_KEY set.
 */
export async function cubeFolder(env: { UGS_URL: string; UGS_API_KEY: string }): Promise<CubeFolder> {
  const dir = makeTempDir('cube-conf');
  try {
    for (const file of ['cube.js', 'query-rewrite.js', 'package.json']) cpSync(join(ROOT, 'examples/cube', file), join(dir.path, file));
    const modules = join(dir.path, 'node_modules');
    const gateway = join(modules, '@cubejs-backend/api-gateway');
    mkdirSync(gateway, { recursive: true });
    writeFileSync(join(gateway, 'package.json'), JSON.stringify({ name: '@cubejs-backend/api-gateway', main: 'index.js' }));
    writeFileSync(join(gateway, 'index.js'), HANDLER_ERROR_MODULE);
    buildDashboardPackage(join(modules, 'user-group-service-dashboard'));
    symlinkSync(join(ROOT, 'node_modules/jose'), join(modules, 'jose'), 'dir');
    Object.assign(process.env, env);
    const loaded = (await import(pathToFileURL(join(dir.path, 'cube.js')).href)) as { default: CubeConfig };
    const { CubejsHandlerError } = createRequire(join(dir.path, 'cube.js'))('@cubejs-backend/api-gateway') as {
      CubejsHandlerError: HandlerErrorClass;
    };
    return { path: dir.path, config: loaded.default, CubejsHandlerError, remove: dir.remove };
  } catch (error) {
    dir.remove();
    throw error;
  }
}
