import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { DEFAULT_ACTIVITY_FLUSH_MS, type Config } from '../platform/config.js';
import { refreshSigningKeyring, loadSigningKeyring, SIGNING_KEY_POLL_MS } from '../signing-keys/signing-keys.js';
import { buildApp } from './http/app.js';
import { createLogger } from '../platform/http/logger.js';
import type { TypedApp } from '../platform/http/typed-app.js';
import { SECRET_POLL_MS } from './server-secret.js';
import { openCore, type Core } from './core.js';
import { warnOfAnotherSigningAlgorithm } from './signing-algorithm-warning.js';
import { webhookWorkerFor } from '../webhooks/delivery/webhook-worker.js';

/**
 * The composition root's second phase: what only a serving process runs over
 * an opened core. The HTTP app on its port; the webhook delivery worker (every
 * serving process delivers; leases keep two from sending one attempt); and the
 * pollers: the signing keys reread more often than a rotation waits before its
 * key signs, the server secret followed through `ugs secret rotate` with this
 * process recorded as a holder, the SQLite file's identity.
 */
export interface ServingConfig
  extends
    Pick<Config, 'port' | 'host' | 'http' | 'metricsToken' | 'trustedProxies' | 'shutdownTimeoutMs'>,
    Partial<Pick<Config, 'activityFlushMs'>> {
  logger: Logger;
  /** How often to check for a server secret rotation; SECRET_POLL_MS unless a test needs it faster. */
  secretPollMs?: number;
  /** False for tests that drive their own worker (a fast poll, a clock); true otherwise. */
  deliverWebhooks?: boolean;
}

export interface Serving {
  app: TypedApp;
  url: string;
  /** Stops listening once in-flight requests finish, then the worker and the pollers; the core stays open. */
  close(): Promise<void>;
}

/** How often a serving process measures its clock against the store's (UGS_CLOCK_OFFSET_MAX_MS). */
const CLOCK_CHECK_MS = 5000;

export async function startServing(core: Core, config: ServingConfig): Promise<Serving> {
  await core.cipher.watch(core.secretRotation.settings, config.secretPollMs ?? SECRET_POLL_MS, true);
  let keyPoll: NodeJS.Timeout | undefined;
  let activityFlush: NodeJS.Timeout | undefined;
  const stopPollers = async () => {
    clearInterval(keyPoll);
    clearInterval(activityFlush);
    core.storeStatus.clock.stop();
    await core.cipher.stop();
  };
  try {
    // Serving records the JWKS max-age it promises verifiers, so that a rotation run elsewhere waits at least that long.
    await loadSigningKeyring(core.signingKeys, { serving: true });
    keyPoll = setInterval(() => void refreshSigningKeyring(core.signingKeys).catch(() => {}), SIGNING_KEY_POLL_MS);
    keyPoll.unref();
    core.storeStatus.monitor();
    // A failed flush keeps its counts for the next one; the store's own health reports the outage.
    activityFlush = setInterval(
      () => void core.embedSessions.flushActivity().catch(() => {}),
      config.activityFlushMs ?? DEFAULT_ACTIVITY_FLUSH_MS,
    );
    activityFlush.unref();
    // Read once before the first request, then kept fresh: a clock that drifts off stops minting within one interval.
    await core.storeStatus.clock.measure();
    core.storeStatus.clock.start(CLOCK_CHECK_MS);
    const app = await buildApp(core, {
      logger: config.logger,
      limits: config.http,
      metricsToken: config.metricsToken,
      trustedProxies: config.trustedProxies,
    });
    await app.listen({ port: config.port, host: config.host });
    const worker = config.deliverWebhooks === false ? undefined : webhookWorkerFor(core, { log: config.logger });
    worker?.start();
    const { address, port } = app.server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return {
      app,
      url: `http://${host}:${port}`,
      close: async () => {
        // In-flight deliveries finish within most of the shutdown time; any cut short are retried once their lease expires.
        await Promise.all([app.close(), worker?.stop(Math.max(100, config.shutdownTimeoutMs * 0.8))]);
        await stopPollers();
        await core.embedSessions.flushActivity();
      },
    };
  } catch (error) {
    await stopPollers();
    throw error;
  }
}

export interface RunningServer extends Serving {
  /** Stops serving, then closes the store. */
  close(): Promise<void>;
}

/** Both phases, as `ugs serve` runs them: the core opened with the settings, then served. */
export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  const core = await openCore({ ...config, storeLog: logger });
  if (core.storeStatus.appliedMigrations.length > 0) logger.info({ migrations: core.storeStatus.appliedMigrations }, 'applied migrations');
  // Under UGS_WORKERS the primary said it, once for all its workers.
  if (!cluster.isWorker) warnOfAnotherSigningAlgorithm(core.signingKeys, config.embed.algorithm, logger);
  try {
    const serving = await startServing(core, { ...config, logger });
    return {
      ...serving,
      close: async () => {
        await serving.close();
        await core.close();
      },
    };
  } catch (error) {
    await core.close();
    throw error;
  }
}
