import type { EmbedClaims } from './embed-claims.js';

/** A verified token as the cache keeps it: what a hit needs, computed once. */
export interface VerifiedToken {
  readonly claims: EmbedClaims;
  /** exp plus the clock tolerance, in ms: from then on the token is expired. */
  readonly expiresAtMs: number;
  /** The (tv, sub) pair as the revocation list keys it. */
  readonly versionKey: string;
}

/**
 * Verified tokens by their exact text, least recently used first. A hit is a
 * Map lookup and a move to the end, no crypto. Bounded by count and by the
 * total length of the keys, so a few huge tokens (properties may be 64 KiB)
 * cannot make it hold gigabytes.
 */
export class TokenCache {
  private readonly entries = new Map<string, VerifiedToken>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(token: string): VerifiedToken | undefined {
    const entry = this.entries.get(token);
    if (entry !== undefined) {
      this.entries.delete(token);
      this.entries.set(token, entry);
    }
    return entry;
  }

  set(token: string, entry: VerifiedToken): void {
    if (this.maxEntries === 0 || token.length > this.maxChars) return;
    this.delete(token);
    this.entries.set(token, entry);
    this.chars += token.length;
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
    }
  }

  delete(token: string): void {
    if (this.entries.delete(token)) this.chars -= token.length;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }
}
