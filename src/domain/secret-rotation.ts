import type { Store } from '../store/store.js';
import type { TokenCipher } from './token-cipher.js';

const PAGE = 500;

export interface ResealSummary {
  scanned: number;
  resealed: number;
}

/**
 * Re-encrypts, under the cipher's current secret, every stored token sealed
 * under another one. Tokens do not change; only their ciphertexts do. Each row
 * is swapped only if it still holds the ciphertext read, so a rotation racing
 * with this (whose new token is sealed under the current secret) wins.
 */
export async function resealTokens(store: Store, cipher: TokenCipher): Promise<ResealSummary> {
  const summary: ResealSummary = { scanned: 0, resealed: 0 };
  for (let after = 0; ; ) {
    const page = await store.listUserGroupsAfter(after, PAGE);
    for (const group of page) {
      summary.scanned++;
      if (cipher.isCurrent(group.tokenCiphertext)) continue;
      const token = cipher.decrypt(group.tokenCiphertext, group.environment, group.providedId);
      const next = cipher.encrypt(token, group.environment, group.providedId);
      if (await store.replaceTokenCiphertext(group.teamId, group.tokenCiphertext, next)) summary.resealed++;
    }
    if (page.length < PAGE) return summary;
    after = page.at(-1)!.teamId;
  }
}
