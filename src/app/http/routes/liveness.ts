import type { TypedApp } from '../../../platform/http/typed-app.js';
import { healthOperation } from './health-docs.js';

/** GET /healthz: the process is up. Needs no key. */
export function registerLiveness(app: TypedApp): void {
  app.get('/healthz', { schema: healthOperation('Liveness', 'The process is up.', 'ok') }, async () => ({
    success: 1 as const,
    status: 'ok',
  }));
}
