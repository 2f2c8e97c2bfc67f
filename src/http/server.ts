import type { AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import { openServices } from '../services.js';
import { webhookWorkerFor } from '../webhooks/webhook-worker.js';
import { buildApp } from './app.js';
import { createLogger } from './logger.js';
import type { TypedApp } from './typed-app.js';

export interface RunningServer {
  app: TypedApp;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes the store. */
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const services = await openServices({ ...config, serving: true, storeLog: logger });
  if (services.appliedMigrations.length > 0) logger.info({ migrations: services.appliedMigrations }, 'applied migrations');
  try {
    const app = await buildApp(services, { logger, limits: config.http, metricsToken: config.metricsToken, trustedProxies: config.trustedProxies });
    await app.listen({ port: config.port, host: config.host });
    // Every serving process delivers webhooks; leases keep them from sending one attempt twice.
    const webhookWorker = webhookWorkerFor(services, { log: logger });
    webhookWorker.start();
    const { address, port } = app.server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return {
      app,
      url: `http://${host}:${port}`,
      close: async () => {
        // In-flight deliveries finish within most of the shutdown time; any cut short are retried once their lease expires.
        await Promise.all([app.close(), webhookWorker.stop(Math.max(100, config.shutdownTimeoutMs * 0.8))]);
        await services.close();
      },
    };
  } catch (error) {
    await services.close();
    throw error;
  }
}
