import { secureRandomBytes } from '../secrets/random-pool.js';

/**
 * A new event's id, the same scheme on every store: what a receiver
 * deduplicates on (the Standard Webhooks `webhook-id`). 32 hex digits, the
 * first 12 the time in milliseconds and the other 80 bits random, so ids of
 * new events land at the end of the unique index (one page written per
 * commit) rather than on a random page each. Ids order nothing: the feed's
 * order is its sequence, which the store numbers at commit.
 */
export function newEventId(now = Date.now()): string {
  return `evt_${now.toString(16).padStart(12, '0')}${secureRandomBytes(10).toString('hex')}`;
}
