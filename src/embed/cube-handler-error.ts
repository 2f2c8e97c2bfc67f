import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Cube's error class, `CubejsHandlerError` of `@cubejs-backend/api-gateway` (its constructor: status, type, message,
 * originalError). Cube's gateway answers an error thrown by checkAuth with its `status` only when it is an instance
 * of that very class; anything else becomes a 500 (packages/cubejs-api-gateway/src/gateway.ts, checkAuthWrapper).
 */
export type CubeHandlerErrorClass = new (status: number, type: string, message: string, originalError?: Error) => Error;

/**
 * Cube's class as cube.js itself would require it: Cube runs in the folder that holds cube.js (its Docker image:
 * /cube/conf, beside /cube/node_modules) and imports that file from there, so resolving from there finds the copy
 * Cube's own gateway loaded. Undefined when there is none (not in Cube's process, or another layout).
 */
export function cubesHandlerError(cwd: string = process.cwd()): CubeHandlerErrorClass | undefined {
  try {
    const gateway = createRequire(join(cwd, 'cube.js'))('@cubejs-backend/api-gateway') as { CubejsHandlerError?: unknown };
    return typeof gateway.CubejsHandlerError === 'function' ? (gateway.CubejsHandlerError as CubeHandlerErrorClass) : undefined;
  } catch {
    return undefined;
  }
}
