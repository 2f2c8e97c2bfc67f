import type { ApiKeyStore } from '../../src/api-keys/api-key-store.js';

/** A key store that counts its key lookups: an authentication answered from the key cache makes none. */
export interface KeyLookups {
  store: ApiKeyStore;
  count: number;
}

export function countKeyLookups(inner: ApiKeyStore): KeyLookups {
  const lookups: KeyLookups = { store: inner, count: 0 };
  lookups.store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property !== 'findApiKeyByHash') return Reflect.get(target, property, receiver);
      return (hash: Buffer) => {
        lookups.count += 1;
        return target.findApiKeyByHash(hash);
      };
    },
  });
  return lookups;
}

/** Whether `run` looked a key up in the store (false: it was answered from the key cache, or refused before any lookup). */
export async function asksStore(lookups: KeyLookups, run: () => Promise<unknown>): Promise<boolean> {
  const before = lookups.count;
  await run();
  return lookups.count > before;
}
