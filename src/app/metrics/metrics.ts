import type { FastifyInstance } from 'fastify';
import cluster from 'node:cluster';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './labelled-series.js';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { ServiceError } from '../../kernel/errors.js';
import { clusterMetricsText, shareWorkerMetrics } from './cluster-metrics.js';
import type { StoreTiming } from './store-timing.js';
import type { DeliveryOutcomes } from '../../webhooks/delivery/delivery-outcomes.js';

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const ROTATE_ROUTE = '/api/user';

let processRegistry: Registry | undefined;

/** Where an app's metrics come from besides its own requests. */
export interface MetricSources {
  /** Groups per environment, asked at scrape time. */
  countUserGroups(): Promise<Record<Environment, number>>;
  /** Store calls to time, observed until the app closes. */
  storeTiming: StoreTiming;
  /** The embed sessions this process counts as minted or renewed. */
  sessions?: { observe(observe: (environment: Environment, kind: 'minted' | 'renewed') => void): () => void };
  /** Webhook attempts' outcomes as this process records them, and the oldest pending delivery (asked at scrape time). */
  webhooks?: { outcomes: DeliveryOutcomes; oldestPendingAt(): Promise<string | null> };
}

/**
 * prom-client's process metrics (CPU, memory, event loop lag, GC...) describe
 * the process, not an app, and each collection starts an event loop monitor
 * and a GC observer that cannot be stopped: collected once per process and
 * shared by every app's registry.
 */
function sharedProcessRegistry(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * One app's metrics in its own registry (never prom-client's global one), so
 * several apps in one process keep their own counts. Labels are bounded: a
 * route is its pattern (`/api/user`) or `unmatched`, never the raw URL.
 */
export class AppMetrics {
  private readonly own = new Registry();
  /** This app's metrics and the shared process metrics; what GET /metrics serves. */
  readonly registry: Registry;

  private readonly requests = new SeriesCounter({
    name: 'ugs_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    registers: [this.own],
  });
  private readonly requestDuration = new SeriesHistogram({
    name: 'ugs_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by route pattern and method.',
    buckets: HTTP_BUCKETS,
    registers: [this.own],
  });
  private readonly storeDuration = new SeriesHistogram({
    name: 'ugs_store_operation_duration_seconds',
    help: 'Duration of store calls (failed ones included), by store method.',
    buckets: STORE_BUCKETS,
    registers: [this.own],
  });
  private readonly rotations = new Counter({
    name: 'ugs_token_rotations_total',
    help: 'User group tokens rotated (POST /api/user answered 200).',
    registers: [this.own],
  });
  private readonly authFailures = new Counter({
    name: 'ugs_auth_failures_total',
    help: 'Refused authentications: reason="unauthenticated" (401), reason="throttled" (429 after too many failures from one address).',
    labelNames: ['reason'] as const,
    registers: [this.own],
  });
  private readonly unsubscribe: () => void;

  constructor(sources: MetricSources) {
    new Gauge({
      name: 'ugs_user_groups',
      help: 'User groups in the store, by environment (counted at scrape time).',
      labelNames: ['environment'] as const,
      registers: [this.own],
      // Every worker counts the same store: with UGS_WORKERS > 1 the total is one worker's count.
      aggregator: 'first',
      async collect() {
        try {
          const counts = await sources.countUserGroups();
          for (const environment of ENVIRONMENTS) this.set({ environment }, counts[environment]);
        } catch {
          // The store is down: no sample rather than a failed scrape (/readyz reports the outage).
          this.reset();
        }
      },
    });
    const unobserveStore = sources.storeTiming.observe((operation, seconds) =>
      this.storeDuration.observe(operation, () => ({ operation }), seconds),
    );
    const unobserveWebhooks = this.installWebhookMetrics(sources);
    const unobserveSessions = this.installSessionMetrics(sources);
    this.unsubscribe = () => {
      unobserveStore();
      unobserveWebhooks();
      unobserveSessions();
    };
    this.registry = Registry.merge([sharedProcessRegistry(), this.own]);
    if (cluster.isWorker) shareWorkerMetrics(this.registry);
  }

  private installSessionMetrics(sources: MetricSources): () => void {
    if (!sources.sessions) return () => {};
    const sessions = new SeriesCounter({
      name: 'ugs_embed_sessions_total',
      help: 'Embed sessions counted by this process: kind="minted" (POST /api/embed_sessions), kind="renewed" (POST /api/embed_sessions/renew); summed over the workers.',
      registers: [this.own],
    });
    // Every series from the start, so a rate over a quiet environment reads 0, not absent.
    for (const environment of ENVIRONMENTS)
      for (const kind of ['minted', 'renewed'] as const) sessions.inc(`${environment}:${kind}`, () => ({ environment, kind }), 0);
    return sources.sessions.observe((environment, kind) => sessions.inc(`${environment}:${kind}`, () => ({ environment, kind })));
  }

  private installWebhookMetrics(sources: MetricSources): () => void {
    const { webhooks } = sources;
    if (!webhooks) return () => {};
    const deliveries = new Counter({
      name: 'ugs_webhook_deliveries_total',
      help: 'Webhook delivery attempts recorded, by outcome: succeeded (2xx), retrying (failed, another attempt scheduled), failed (failed, no attempt left).',
      labelNames: ['outcome'] as const,
      registers: [this.own],
    });
    new Gauge({
      name: 'ugs_webhook_oldest_pending_seconds',
      help: 'Age of the oldest webhook delivery not yet delivered nor given up (0 when none; read from the store at scrape time).',
      registers: [this.own],
      // Every worker reads the same store.
      aggregator: 'first',
      async collect() {
        try {
          const at = await webhooks.oldestPendingAt();
          this.set(at === null ? 0 : Math.max(0, (Date.now() - Date.parse(at)) / 1000));
        } catch {
          this.reset();
        }
      },
    });
    return webhooks.outcomes.observe((outcome) => deliveries.inc({ outcome }));
  }

  /** What GET /metrics serves: this process's metrics, or every worker's when this is one of UGS_WORKERS. */
  async text(): Promise<string> {
    if (!cluster.isWorker) return this.registry.metrics();
    try {
      return await clusterMetricsText();
    } catch (error) {
      throw new ServiceError('unavailable', `The workers' metrics could not be gathered: ${(error as Error).message}.`);
    }
  }

  /** Counts every answered request; stops observing the store when the app closes. */
  install(app: FastifyInstance): void {
    // Callback-style, like the app's other per-request hooks: an async hook costs a promise and a microtask.
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const method = request.method;
      const status = reply.statusCode;
      this.requests.inc(`${route} ${method} ${status}`, () => ({ route, method, status: String(status) }));
      this.requestDuration.observe(`${route} ${method}`, () => ({ route, method }), reply.elapsedTime / 1000);
      if (status === 200 && method === 'POST' && route === ROTATE_ROUTE) this.rotations.inc();
      else if (status === 401) this.authFailures.inc({ reason: 'unauthenticated' });
      // The failed-auth throttle refuses before authentication; the per-key rate limit only after it.
      else if (status === 429 && !(request as { principal?: unknown }).principal) this.authFailures.inc({ reason: 'throttled' });
      done();
    });
    app.addHook('onClose', async () => this.unsubscribe());
  }
}
