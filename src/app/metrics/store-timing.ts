import { performance } from 'node:perf_hooks';

/** Told the duration of every finished store call (failed ones included). */
export type StoreOperationObserver = (operation: string, seconds: number) => void;

/**
 * How long store calls take, for whoever observes: GET /metrics'
 * `ugs_store_operation_duration_seconds`. `timedPort` (timed-port.ts) wraps
 * every port src/app/core.ts hands out and calls `time` around each
 * of its methods, naming the operation after the method. Costs one size check
 * per call while nobody observes (the CLI, a bare `openCore`).
 */
export class StoreTiming {
  /** Entries rather than bare functions, so one observer subscribed twice is told twice and unsubscribed once each. */
  private readonly observers = new Set<{ observe: StoreOperationObserver }>();

  /** Calls `observe` after every timed store call; returns the unsubscribe function. */
  observe(observe: StoreOperationObserver): () => void {
    const entry = { observe };
    this.observers.add(entry);
    return () => this.observers.delete(entry);
  }

  /** `call()`, unchanged; once it settles, every observer is told how long it took. */
  time<T>(operation: string, call: () => Promise<T>): Promise<T> {
    if (this.observers.size === 0) return call();
    const start = performance.now();
    const result = call();
    const done = () => {
      const seconds = (performance.now() - start) / 1000;
      for (const observer of this.observers) observer.observe(operation, seconds);
    };
    result.then(done, done);
    return result;
  }
}
