import { ServiceError } from '../../kernel/errors.js';

const WINDOW_MS = 60_000;
const MAX_TRACKED = 10_000;

/**
 * Counts failed authentications per client address in fixed one-minute
 * windows. Past the limit, that address's further failures are answered 429
 * instead of 401 until its window ends. Only failures: a valid key is never
 * refused here, so an attacker sharing an address with a customer (NAT, a
 * load balancer) cannot lock the customer out. Bounded memory: the oldest
 * addresses are forgotten first.
 */
export class FailedAuthThrottle {
  private readonly windows = new Map<string, { failures: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one failed authentication from `address` and returns what to answer
   * it: `failure` itself while the address is within its limit, `rate_limited`
   * with Retry-After once it is over.
   */
  refuse(address: string, failure: ServiceError): ServiceError {
    if (this.limit === 0) return failure;
    const now = this.now();
    let window = this.windows.get(address);
    if (!window || window.resetAt <= now) {
      this.windows.delete(address);
      if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
      window = { failures: 0, resetAt: now + WINDOW_MS };
      this.windows.set(address, window);
    }
    window.failures++;
    if (window.failures <= this.limit) return failure;
    const seconds = Math.ceil((window.resetAt - now) / 1000);
    return new ServiceError('rate_limited', `Too many failed authentication attempts from this address; retry in ${seconds} s.`, {
      retryAfterSeconds: seconds,
    });
  }
}
