import { ServiceError } from '../domain/errors.js';

const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

/**
 * Counts failed authentications per client address in fixed one-minute
 * windows; an address over the limit is refused (429) until its window ends,
 * whatever key it presents, so keys cannot be guessed at speed. Bounded
 * memory: the oldest addresses are forgotten first.
 */
export class FailedAuthThrottle {
  private readonly windows = new Map<string, { failures: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws `rate_limited` when `address` used up its failures in this window. */
  check(address: string): void {
    if (this.limit === 0) return;
    const window = this.windows.get(address);
    if (!window) return;
    const remainingMs = window.resetAt - this.now();
    if (remainingMs <= 0) {
      this.windows.delete(address);
      return;
    }
    if (window.failures >= this.limit) {
      const seconds = Math.ceil(remainingMs / 1000);
      throw new ServiceError('rate_limited', `Too many failed authentication attempts from this address; retry in ${seconds} s.`, {
        'Retry-After': String(seconds),
      });
    }
  }

  recordFailure(address: string): void {
    if (this.limit === 0) return;
    const current = this.windows.get(address);
    if (current && current.resetAt > this.now()) {
      current.failures++;
      return;
    }
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(address, { failures: 1, resetAt: this.now() + WINDOW_MS });
  }
}
