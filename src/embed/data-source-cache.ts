import type { RoutedDataSource } from './data-source-credentials.js';

/** Asks the service for one data source: null when it has none of that id. */
export type DataSourceFetch = (id: string) => Promise<RoutedDataSource | null>;

/** Called when an answer newer than any before it is kept: the pools follow it. */
export type DataSourceChange = (id: string, source: RoutedDataSource | null) => void;

interface Request {
  readonly sentAt: number;
  readonly answered: Promise<void>;
}

interface Entry {
  /** The newest answer (null: no such data source); undefined before the first. */
  source: RoutedDataSource | null | undefined;
  /** When the request that brought `source` was sent (epoch ms). */
  sentAt: number;
  request: Request | undefined;
}

/**
 * What the service said of each data source, no older than refreshMs: a run that starts at time t uses an
 * answer to a request sent at t − refreshMs or later, cached or asked for then. Concurrent runs share one
 * request; answers are kept newest request first, so a slow answer never overwrites a later one. Absent data
 * sources are remembered as well, for as long. A failed request keeps nothing and is retried by the next run:
 * once the last answer is older than refreshMs, runs fail while the service cannot be asked (fail closed).
 * At most `maxEntries` data sources are remembered, the least recently used forgotten first.
 */
export class DataSourceCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly fetchOne: DataSourceFetch,
    private readonly refreshMs: number,
    private readonly maxEntries: number,
    private readonly changed: DataSourceChange,
  ) {}

  /** Data source `id` as the service answered at most refreshMs ago (null: it has none); throws what the request threw. */
  async current(id: string): Promise<RoutedDataSource | null> {
    const now = Date.now();
    const entry = this.touch(id);
    if (entry.source !== undefined && now - entry.sentAt <= this.refreshMs) return entry.source;
    if (entry.request === undefined || now - entry.request.sentAt > this.refreshMs) entry.request = this.ask(id, entry, now);
    await entry.request.answered;
    // This request's answer, or a later one's that came first.
    return entry.source!;
  }

  /** The newest answer kept for `id` (null: no such data source), however old; undefined when none is. */
  newest(id: string): RoutedDataSource | null | undefined {
    return this.entries.get(id)?.source;
  }

  /** Makes the next run ask again (a connection refused with these settings: they may have changed). */
  forget(id: string): void {
    const entry = this.entries.get(id);
    if (entry !== undefined) entry.sentAt = Number.NEGATIVE_INFINITY;
  }

  private ask(id: string, entry: Entry, sentAt: number): Request {
    const answered = this.fetchOne(id).then((source) => {
      if (sentAt < entry.sentAt) return;
      entry.source = source;
      entry.sentAt = sentAt;
      this.changed(id, source);
    });
    const request = { sentAt, answered };
    const done = () => {
      if (entry.request === request) entry.request = undefined;
    };
    answered.then(done, done);
    return request;
  }

  private touch(id: string): Entry {
    let entry = this.entries.get(id);
    if (entry === undefined) {
      entry = { source: undefined, sentAt: Number.NEGATIVE_INFINITY, request: undefined };
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    } else {
      this.entries.delete(id);
    }
    this.entries.set(id, entry);
    return entry;
  }
}
