import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  metricName?: string;
  labels: Labels | Record<string, string | number>;
  value: number;
}

interface SeriesOptions {
  name: string;
  help: string;
  registers: Registry[];
}

/**
 * A counter or histogram whose series are looked up by a key the caller builds
 * (`${route} ${method} ${status}`) and kept, so that counting a request is a
 * map lookup and an addition. prom-client's own metrics hash and validate the
 * label object on every call, which was the hit path's largest single cost
 * after Node's own (docs/performance.md, issue 42). The exposition is
 * prom-client's: these register with a prom-client Registry, which formats
 * what `get()` returns, and the cluster's aggregator sums them over workers.
 */
abstract class LabelledSeries<S> {
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';
  readonly name: string;
  readonly help: string;
  protected readonly series = new Map<string, { labels: Labels; state: S }>();

  constructor(options: SeriesOptions) {
    this.name = options.name;
    this.help = options.help;
    for (const registry of options.registers) registry.registerMetric(this as never);
  }

  protected abstract fresh(): S;
  protected abstract values(labels: Labels, state: S): MetricValue[];

  protected stateOf(key: string, labels: () => Labels): S {
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: labels(), state: this.fresh() };
      this.series.set(key, entry);
    }
    return entry.state;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue[] }> {
    const values = [...this.series.values()].flatMap(({ labels, state }) => this.values(labels, state));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.series.clear();
  }
}

/** A counter of labelled series; `labels` is called once per new key. */
export class SeriesCounter extends LabelledSeries<{ value: number }> {
  readonly type = 'counter';

  /** Adds `by` (1 unless given; 0 makes the series exist, reading 0). */
  inc(key: string, labels: () => Labels, by = 1): void {
    this.stateOf(key, labels).value += by;
  }

  protected fresh() {
    return { value: 0 };
  }

  protected values(labels: Labels, state: { value: number }): MetricValue[] {
    return [{ labels, value: state.value }];
  }
}

interface HistogramState {
  /** Observations per bucket, not cumulative; the last one is +Inf. */
  counts: number[];
  sum: number;
}

/** A histogram of labelled series with fixed upper bounds (seconds); `labels` is called once per new key. */
export class SeriesHistogram extends LabelledSeries<HistogramState> {
  readonly type = 'histogram';

  constructor(
    options: SeriesOptions & {
      /** Ascending. */
      buckets: number[];
    },
  ) {
    super(options);
    this.buckets = options.buckets;
  }

  private readonly buckets: number[];

  observe(key: string, labels: () => Labels, value: number): void {
    const state = this.stateOf(key, labels);
    let bucket = 0;
    while (bucket < this.buckets.length && value > this.buckets[bucket]!) bucket++;
    state.counts[bucket]!++;
    state.sum += value;
  }

  protected fresh(): HistogramState {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0 };
  }

  protected values(labels: Labels, state: HistogramState): MetricValue[] {
    let cumulative = 0;
    const values: MetricValue[] = this.buckets.map((le, i) => {
      cumulative += state.counts[i]!;
      return { metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative };
    });
    cumulative += state.counts[this.buckets.length]!;
    values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: cumulative });
    values.push({ metricName: `${this.name}_sum`, labels, value: state.sum });
    values.push({ metricName: `${this.name}_count`, labels, value: cumulative });
    return values;
  }
}
