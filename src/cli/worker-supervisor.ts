import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../platform/config.js';
import { createLogger } from '../platform/http/logger.js';
import { serveClusterMetrics } from '../app/metrics/cluster-metrics.js';
import { openCore } from '../app/core.js';
import { warnOfAnotherSigningAlgorithm } from '../app/signing-algorithm-warning.js';

/** How long past UGS_SHUTDOWN_TIMEOUT_MS a worker may take to exit before it is killed. */
const KILL_GRACE_MS = 5000;

/**
 * UGS_WORKERS > 1: this process serves no HTTP. It prepares the store once
 * (migrations, the data dir's secret), so workers never race to create them,
 * then forks the workers, which share the listening port through node:cluster.
 *
 * SIGTERM or SIGINT here is passed on as SIGTERM: each worker finishes its
 * in-flight requests, then this process exits 0. When a worker dies on its
 * own, the others are stopped and this process exits 1, so the supervisor
 * (systemd, Kubernetes) restarts the whole service instead of this process
 * hiding a crash loop.
 */
export async function superviseWorkers(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const core = await openCore(config);
  if (core.storeStatus.appliedMigrations.length > 0) logger.info({ migrations: core.storeStatus.appliedMigrations }, 'applied migrations');
  warnOfAnotherSigningAlgorithm(core.signingKeys, config.embed.algorithm, logger);
  await core.close();
  serveClusterMetrics();

  const live = new Set<Worker>();
  let stopping = false;
  let exitCode = 0;
  let listening = 0;

  const stopAll = () => {
    stopping = true;
    for (const worker of live) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of live) worker.process.kill('SIGKILL');
    }, config.shutdownTimeoutMs + KILL_GRACE_MS).unref();
  };

  cluster.on('listening', (_worker, address) => {
    listening += 1;
    if (listening === config.workers) logger.info({ workers: config.workers, port: address.port }, 'all workers listening');
  });
  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    if (!stopping) {
      logger.error({ worker: worker.process.pid, code, signal }, 'a worker exited unexpectedly; stopping the others');
      exitCode = 1;
      stopAll();
    }
    if (live.size === 0) process.exit(exitCode);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      logger.info({ signal }, 'stopping workers: finishing in-flight requests');
      stopAll();
    });
  }

  for (let i = 0; i < config.workers; i++) live.add(cluster.fork());
}
