import { ServiceError } from './errors.js';

/** What the clock check reads: the store's own clock, or null when the store runs on this machine's clock. */
export interface StoreClockSource {
  /** The store's time now (PostgreSQL's `clock_timestamp()`), or null for a store on this machine (SQLite). */
  clock(): Promise<Date | null>;
}

/** One measurement of this process's clock against the store's. */
export interface ClockReading {
  /** The store's clock minus this process's, in milliseconds (0 on this machine's clock). */
  offsetMs: number;
  /** Half the round trip the reading took: the offset is known to within this. */
  uncertaintyMs: number;
  /** When it was taken, on this process's clock (epoch milliseconds). */
  takenAt: number;
}

export interface StoreClockOptions {
  /** UGS_CLOCK_OFFSET_MAX_MS: how far this process's clock may be from the store's while it mints and renews. */
  maxOffsetMs: number;
  /** How old the last reading may be before minting waits for a new one (serving measures every few seconds). */
  maxReadingAgeMs?: number;
  /** This process's clock (epoch milliseconds); tests skew it to play a replica on another machine. */
  now?: () => number;
}

/** Room for the write of a viewer revocation between the cut-off's reading of the clock and its commit. */
export const REVOCATION_WRITE_MARGIN_MS = 1000;

/**
 * This process's clock held against the store's. A viewer's revocation ends the sessions whose `iat` (this
 * process's clock, or another replica's) is up to a cut-off; replicas on other machines stamp `iat` with their
 * own clocks, so the cut-off adds the most two replicas' clocks may differ by, and that difference is bounded by
 * each process refusing to mint or renew while its clock is further from the store's than `maxOffsetMs`.
 * On one machine's clock (SQLite) there is nothing to measure and the difference is zero.
 */
export class StoreClock {
  private reading: ClockReading | null = null;
  private readonly now: () => number;
  private readonly maxReadingAgeMs: number;
  private sharesOurClock = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: StoreClockSource,
    readonly options: StoreClockOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.maxReadingAgeMs = options.maxReadingAgeMs ?? 60_000;
  }

  /** Reads the store's clock once; rejects when the store does not answer. */
  async measure(): Promise<ClockReading> {
    const sent = this.now();
    const storeTime = await this.source.clock();
    const received = this.now();
    this.sharesOurClock = storeTime === null;
    const reading =
      storeTime === null
        ? { offsetMs: 0, uncertaintyMs: 0, takenAt: received }
        : { offsetMs: storeTime.getTime() - (sent + received) / 2, uncertaintyMs: (received - sent) / 2, takenAt: received };
    this.reading = reading;
    return reading;
  }

  /**
   * Measures every `intervalMs` until stopped (serving processes); a failed reading keeps the last one to age.
   * Nothing to follow on this machine's clock (measured once already: serving measures before it starts this).
   */
  start(intervalMs: number): void {
    if (this.sharesOurClock) return;
    this.timer ??= setInterval(() => void this.measure().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * What a viewer revocation's cut-off adds to the revoking process's clock, measured now: this clock's own
   * distance to the store's (so that the cut-off is on the store's clock whatever this one says), the most a
   * minting process's clock may run ahead of the store's, and the write's margin. Just the margin on this
   * machine's clock.
   */
  async cutOffAllowanceMs(): Promise<number> {
    const { offsetMs, uncertaintyMs } = await this.measure();
    if (this.sharesOurClock) return REVOCATION_WRITE_MARGIN_MS;
    return Math.max(0, offsetMs + uncertaintyMs + this.options.maxOffsetMs + REVOCATION_WRITE_MARGIN_MS);
  }

  /**
   * Nothing when the last reading is recent and within the bound; a promise when a reading must be taken
   * first (the first call, or one after the readings stopped); throws `unavailable` saying by how much this
   * clock is off when it is off by more than the bound. Synchronous when it can be: minting calls it.
   */
  assertWithinBound(): Promise<void> | undefined {
    const reading = this.reading;
    if (reading === null || this.now() - reading.takenAt > this.maxReadingAgeMs) return this.measure().then((r) => this.judge(r));
    this.judge(reading);
    return undefined;
  }

  private judge({ offsetMs, uncertaintyMs }: ClockReading): void {
    if (Math.abs(offsetMs) + uncertaintyMs <= this.options.maxOffsetMs) return;
    throw new ServiceError(
      'unavailable',
      `This process's clock is ${(Math.abs(offsetMs) / 1000).toFixed(1)} s ${offsetMs < 0 ? 'ahead of' : 'behind'} the database's (±${Math.ceil(uncertaintyMs)} ms), more than UGS_CLOCK_OFFSET_MAX_MS (${this.options.maxOffsetMs} ms) allows: it mints and renews no embed session until its clock is corrected (NTP), since a viewer's revocation elsewhere could miss the sessions it stamps. Another replica can serve this request.`,
      { retryAfterSeconds: 5 },
    );
  }
}
