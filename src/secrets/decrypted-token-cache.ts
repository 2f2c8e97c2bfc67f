/** Most tokens kept; 1,000s of hot groups fit, and the oldest entry goes first beyond it (about 3 MB). */
export const DECRYPTED_TOKEN_CACHE_MAX = 10_000;

interface Entry {
  environment: string;
  providedId: string;
  token: string;
}

/**
 * Tokens already decrypted, by their stored ciphertext. Opening AES-GCM costs
 * about 5 µs a call, most of it OpenSSL's per-call set-up: on the hit path
 * that is a tenth of the request. The plaintext is in this process's memory
 * anyway while a request is served; the cache keeps up to this many for
 * longer. A ciphertext names its IV, so a new token (a rotation) or a reseal
 * under a new secret is a new ciphertext and never finds a stale entry; the
 * group the ciphertext was opened for is compared too, so a ciphertext copied
 * onto another row still fails to open as AES-GCM's associated data demands.
 */
export class DecryptedTokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly max = DECRYPTED_TOKEN_CACHE_MAX) {}

  /** The token `open` gives for this ciphertext of this group, opening it only when not already known. */
  get(ciphertext: Buffer, environment: string, providedId: string, open: () => string): string {
    // latin1 maps each byte to one character: a cheap, exact key.
    const key = ciphertext.toString('latin1');
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.environment === environment && entry.providedId === providedId) return entry.token;
    const token = open();
    if (entry === undefined) {
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { environment, providedId, token });
    }
    return token;
  }
}
