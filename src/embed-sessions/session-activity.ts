import type { Environment } from '../kernel/environment.js';
import type { ViewerActivity } from '../viewers/viewer.js';

const HOUR_MS = 3_600_000;

/** Sessions minted for one group in one hour, as counted by one process since its last flush, or as the store sums them. */
export interface SessionActivityCount {
  environment: Environment;
  teamId: number;
  /** The hour's first instant, ISO 8601 UTC. */
  hourStart: string;
  minted: number;
}

/** What one flush hands the store: counts, and an id that makes applying them twice count them once. */
export interface SessionActivityBatch {
  batchId: string;
  counts: SessionActivityCount[];
  /** The viewers seen, per group: first and last seen in this batch, and their sessions in it. */
  viewers: ViewerActivity[];
}

/**
 * Counts minted sessions in memory, per group and hour, for the store to add
 * up in one write every few seconds: a durable write per mint is what made a
 * dashboard view cost a database round trip. Counting is a Map update on the
 * mint path; a crash loses what was counted since the last flush (the flush
 * interval's worth, `UGS_ACTIVITY_FLUSH_SECONDS`), never a revocation, which
 * is written before its answer.
 */
export class SessionActivityCounter {
  private pending = new Map<string, SessionActivityCount>();
  private viewers = new Map<string, ViewerActivity>();

  record(environment: Environment, teamId: number, at: Date, viewerId?: string): void {
    const hour = Math.floor(at.getTime() / HOUR_MS);
    const key = `${environment}\u0000${teamId}\u0000${hour}`;
    const count = this.pending.get(key);
    if (count) count.minted++;
    else this.pending.set(key, { environment, teamId, hourStart: new Date(hour * HOUR_MS).toISOString(), minted: 1 });
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
  take(): { counts: SessionActivityCount[]; viewers: ViewerActivity[] } {
    const taken = { counts: [...this.pending.values()], viewers: [...this.viewers.values()] };
    this.pending = new Map();
    this.viewers = new Map();
    return taken;
  }
}

/** Where counted activity goes: EmbedSessionStore's half for it. */
export interface SessionActivitySink {
  addSessionActivity(batch: SessionActivityBatch, now: string): Promise<void>;
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

  constructor(
    private readonly sink: SessionActivitySink,
    private readonly newBatchId: () => string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  record(environment: Environment, teamId: number, at: Date, viewerId?: string): void {
    this.counter.record(environment, teamId, at, viewerId);
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
      await this.sink.addSessionActivity(this.unsent, this.now().toISOString());
      this.unsent = undefined;
    }
    if (this.counter.size === 0) return;
    this.unsent = { batchId: this.newBatchId(), ...this.counter.take() };
    await this.sink.addSessionActivity(this.unsent, this.now().toISOString());
    this.unsent = undefined;
  }
}
