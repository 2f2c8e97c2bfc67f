import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * With UGS_WORKERS > 1 a scrape lands on one worker, but Prometheus must see
 * the service: that worker asks the primary, which gathers every worker's
 * registry over IPC (prom-client's AggregatorRegistry) and sums them.
 */
const REQUEST = 'ugs:cluster-metrics-request';
const ANSWER = 'ugs:cluster-metrics';
const TIMEOUT_MS = 5000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers workers' requests with every worker's metrics, aggregated. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== REQUEST || typeof message.id !== 'number') return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (error: Error) => worker.send({ type: ANSWER, id, error: error.message } satisfies Answer),
    );
  });
}

/** In a worker: lets the primary collect `registry` (this installs prom-client's answering listener). */
export function shareWorkerMetrics(registry: Registry): void {
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
}

let nextRequestId = 0;

/** In a worker: the metrics of every worker, from the primary. */
export function clusterMetricsText(): Promise<string> {
  const id = nextRequestId++;
  return new Promise((resolve, reject) => {
    const finish = (error: Error | undefined, text?: string) => {
      clearTimeout(timer);
      process.off('message', onMessage);
      if (error) reject(error);
      else resolve(text ?? '');
    };
    const onMessage = (message: Partial<Answer>) => {
      if (message?.type === ANSWER && message.id === id)
        finish(message.error === undefined ? undefined : new Error(message.error), message.text);
    };
    const timer = setTimeout(() => finish(new Error('the primary process did not answer')), TIMEOUT_MS);
    process.on('message', onMessage);
    process.send!({ type: REQUEST, id }, (error: Error | null) => {
      if (error) finish(error);
    });
  });
}
