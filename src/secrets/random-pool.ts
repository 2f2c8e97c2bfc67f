import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Bytes from the CSPRNG, drawn from it a pool at a time: one OpenSSL call per
 * ~90 new tokens instead of two per token (its body and its IV), which cost
 * about 6% of a create's CPU (docs/performance.md). Node does the same for
 * crypto.randomUUID.
 * Each byte is handed out once and zeroed in the pool as it is, so the pool
 * never holds a value already issued.
 */
export class RandomPool {
  private next: number;

  constructor(
    private readonly pool: Buffer = Buffer.alloc(4096),
    private readonly refill: (pool: Buffer) => void = randomFillSync,
  ) {
    this.next = pool.length;
  }

  take(size: number): Buffer {
    // Large draws are rare (none on the request path) and would drain the pool.
    if (size > this.pool.length / 8) return randomBytes(size);
    if (this.next + size > this.pool.length) {
      this.refill(this.pool);
      this.next = 0;
    }
    const bytes = Buffer.from(this.pool.subarray(this.next, this.next + size));
    this.pool.fill(0, this.next, this.next + size);
    this.next += size;
    return bytes;
  }
}

const shared = new RandomPool();

/** `size` bytes from the CSPRNG, through this process's pool. */
export function secureRandomBytes(size: number): Buffer {
  return shared.take(size);
}
