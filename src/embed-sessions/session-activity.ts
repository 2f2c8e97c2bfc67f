import type { Environment } from '../kernel/environment.js';
import type { ViewerActivity } from '../viewers/viewer.js';

const HOUR_MS = 3_600_000;

/** What a session count is of: a new session, or a live one's new token. */
export type SessionKind = 'minted' | 'renewed';

/** Sessions minted and renewed for one group in one hour, as counted by one process since its last flush, or as the store sums them. */
export interface SessionActivityCount {
  environment: Environment;
  teamId: number;
  /** The hour's first instant, ISO 8601 UTC. */
  hourStart: string;
  minted: number;
  renewed: number;
  /** The latest mint's instant in this hour; null when the hour counts renewals only. */
  lastMintedAt: string | null;
}

/** One viewer with a session minted or renewed in one group's hour: stored as a set, so any number of processes count it once. */
export interface ViewerHour {
  environment: Environment;
  teamId: number;
  hourStart: string;
  viewerId: string;
}

/** What one flush hands the store: counts, and an id that makes applying them twice count them once. */
export interface SessionActivityBatch {
  batchId: string;
  counts: SessionActivityCount[];
  /** The viewers seen, per group: first and last seen in this batch, and their sessions in it. */
  viewers: ViewerActivity[];
  /** The viewers active per group and hour (minted or renewed): distinct viewers per hour, day or range are counted from these. */
  viewerHours: ViewerHour[];
}

interface HourCount extends SessionActivityCount {
  viewerIds: Set<string>;
  /** The latest mint as a number, made text once at the flush: the mint path's budget (docs/performance.md). */
  lastMintedMs: number;
}

/**
 * Counts minted and renewed sessions in memory, per group and hour, for the
 * store to add up in one write every few seconds: a durable write per mint is
 * what made a dashboard view cost a database round trip. Counting is a Map
 * update on the mint and renewal paths; a crash loses what was counted since
 * the last flush (the flush interval's worth, `UGS_ACTIVITY_FLUSH_MS`), never
 * a revocation, which is written before its answer.
 */
export class SessionActivityCounter {
  private pending = new Map<string, HourCount>();
  private viewers = new Map<string, ViewerActivity>();

  record(environment: Environment, teamId: number, at: Date, viewerId?: string, kind: SessionKind = 'minted'): void {
    const hour = Math.floor(at.getTime() / HOUR_MS);
    const key = `${environment}\u0000${teamId}\u0000${hour}`;
    let count = this.pending.get(key);
    if (!count) {
      const hourStart = new Date(hour * HOUR_MS).toISOString();
      count = { environment, teamId, hourStart, minted: 0, renewed: 0, lastMintedAt: null, viewerIds: new Set(), lastMintedMs: -1 };
      this.pending.set(key, count);
    }
    if (viewerId !== undefined) count.viewerIds.add(viewerId);
    if (kind === 'renewed') {
      count.renewed++;
      return;
    }
    count.minted++;
    if (at.getTime() > count.lastMintedMs) count.lastMintedMs = at.getTime();
    // A viewer's sessions and first and last seen (GET .../viewers) are its mints'.
    if (viewerId !== undefined) this.recordViewer(environment, teamId, at.toISOString(), viewerId);
  }

  private recordViewer(environment: Environment, teamId: number, at: string, viewerId: string): void {
    const key = `${environment}\u0000${teamId}\u0000${viewerId}`;
    const seen = this.viewers.get(key);
    if (!seen) this.viewers.set(key, { environment, teamId, viewerId, firstSeenAt: at, lastSeenAt: at, sessions: 1 });
    else {
      seen.sessions++;
      if (at > seen.lastSeenAt) seen.lastSeenAt = at;
      if (at < seen.firstSeenAt) seen.firstSeenAt = at;
    }
  }

  get size(): number {
    return this.pending.size;
  }

  /** Everything counted so far; counting starts again from zero. */
  take(): Omit<SessionActivityBatch, 'batchId'> {
    const counts: SessionActivityCount[] = [];
    const viewerHours: ViewerHour[] = [];
    for (const { viewerIds, lastMintedMs, ...count } of this.pending.values()) {
      counts.push({ ...count, lastMintedAt: lastMintedMs < 0 ? null : new Date(lastMintedMs).toISOString() });
      for (const viewerId of viewerIds)
        viewerHours.push({ environment: count.environment, teamId: count.teamId, hourStart: count.hourStart, viewerId });
    }
    const taken = { counts, viewers: [...this.viewers.values()], viewerHours };
    this.pending = new Map();
    this.viewers = new Map();
    return taken;
  }
}

/** Where counted activity goes: EmbedSessionStore's half for it. */
export interface SessionActivitySink {
  /** `forgetBefore`: counts of hours before it are removed, a bounded number per call (the retention, UGS_USAGE_RETENTION_DAYS). */
  addSessionActivity(batch: SessionActivityBatch, now: string, forgetBefore?: string): Promise<void>;
}

export interface SessionActivityOptions {
  now?: () => Date;
  /** How many days of counts the store keeps; older ones are removed by the flushes. Unset: kept. */
  retentionDays?: number;
}

/**
 * The counter and its flushes. A flush that fails (or whose answer is lost)
 * keeps its batch and sends it again, with the same id, before anything
 * counted later: the store applies a batch id once, so nothing is lost to a
 * store outage and nothing is counted twice.
 */
export class SessionActivity {
  private readonly counter = new SessionActivityCounter();
  private unsent: SessionActivityBatch | undefined;
  private flushing: Promise<void> | undefined;
  private readonly now: () => Date;
  private readonly observers = new Set<{ observe: (environment: Environment, kind: SessionKind) => void }>();

  constructor(
    private readonly sink: SessionActivitySink,
    private readonly newBatchId: () => string,
    private readonly options: SessionActivityOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  record(environment: Environment, teamId: number, at: Date, viewerId?: string, kind: SessionKind = 'minted'): void {
    this.counter.record(environment, teamId, at, viewerId, kind);
    for (const observer of this.observers) observer.observe(environment, kind);
  }

  /** Calls `observe` for every session this process counts (GET /metrics' ugs_embed_sessions_total); returns the unsubscribe function. */
  observe(observe: (environment: Environment, kind: SessionKind) => void): () => void {
    const entry = { observe };
    this.observers.add(entry);
    return () => this.observers.delete(entry);
  }

  /** Writes what was counted; one flush at a time (a second call waits for the first, then flushes what came since). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing.catch(() => undefined);
    this.flushing = this.writePending();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  private async writePending(): Promise<void> {
    if (this.unsent) {
      await this.write(this.unsent);
      this.unsent = undefined;
    }
    if (this.counter.size === 0) return;
    this.unsent = { batchId: this.newBatchId(), ...this.counter.take() };
    await this.write(this.unsent);
    this.unsent = undefined;
  }

  private write(batch: SessionActivityBatch): Promise<void> {
    const now = this.now();
    const days = this.options.retentionDays;
    const forgetBefore = days === undefined ? undefined : new Date(now.getTime() - days * 86_400_000).toISOString();
    return this.sink.addSessionActivity(batch, now.toISOString(), forgetBefore);
  }
}
