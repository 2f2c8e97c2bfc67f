import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiKeyService } from '../../src/api-keys/api-key-service.js';
import type { KeyRevocationSignal } from '../../src/api-keys/key-revocation-signal.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ApiKeyStore } from '../../src/api-keys/api-key-store.js';
import { asksStore, countKeyLookups, type KeyLookups } from '../helpers/key-lookups.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** A signal the test moves by hand: what a store reports after another process revokes a key. */
class ManualSignal implements KeyRevocationSignal {
  value: number | undefined = 1;
  epoch(): number | undefined {
    return this.value;
  }
}

/**
 * The key cache's epoch rule, with the signal under the test's control: an
 * entry is used only while the signal still shows the epoch it was cached
 * under, and nothing is cached or used while the signal cannot tell.
 */
describe('ApiKeyService key cache and the revocation signal', () => {
  const dir = makeTempDir('ugs-epoch');
  let store: SqliteStore;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'e.sqlite') })).store;
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  /** A cached service over the test's store and `signal`, and the count of the key lookups it makes. */
  function service(signal: KeyRevocationSignal, over: ApiKeyStore = store.apiKeys): { keys: ApiKeyService; lookups: KeyLookups } {
    const lookups = countKeyLookups(over);
    return { keys: new ApiKeyService({ store: lookups.store, revocations: signal, cacheTtlMs: 60_000 }), lookups };
  }

  it('uses a cached key while the epoch holds, and drops it when the epoch moves', async () => {
    const signal = new ManualSignal();
    const { keys, lookups } = service(signal);
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    const principal = await keys.authenticate(key);
    assert.equal(await asksStore(lookups, async () => assert.deepEqual(await keys.authenticate(key), principal)), false, 'cached');
    signal.value = 2;
    assert.equal(await asksStore(lookups, () => keys.authenticate(key)), true, 'cached under epoch 1');
    assert.equal(await asksStore(lookups, () => keys.authenticate(key)), false, 'looked up again and cached under epoch 2');
  });

  it('caches nothing and uses nothing while the signal cannot tell', async () => {
    const signal = new ManualSignal();
    const { keys, lookups } = service(signal);
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    signal.value = undefined;
    assert.equal(await asksStore(lookups, () => keys.authenticate(key)), true, 'an entry from before is not used');
    assert.equal(await asksStore(lookups, () => keys.authenticate(key)), true, 'nor is a new one made');
    signal.value = 3;
    assert.equal(
      await asksStore(lookups, () => keys.authenticate(key)),
      true,
      'the signal is back with a new epoch: the store is asked first',
    );
    assert.equal(await asksStore(lookups, () => keys.authenticate(key)), false);
  });

  it('files an entry under the epoch read before the lookup, so a revocation during the lookup is not missed', async () => {
    const signal = new ManualSignal();
    // The store answers the lookup, and meanwhile (as far as the signal can tell) a key is revoked elsewhere.
    const revokingDuringLookup = new Proxy(store.apiKeys, {
      get(target, property, receiver) {
        if (property !== 'findApiKeyByHash') return Reflect.get(target, property, receiver);
        return async (hash: Buffer) => {
          const found = await target.findApiKeyByHash(hash);
          signal.value = (signal.value ?? 0) + 1;
          return found;
        };
      },
    });
    const { keys, lookups } = service(signal, revokingDuringLookup);
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    assert.equal(
      await asksStore(lookups, () => keys.authenticate(key)),
      true,
      'the answer may predate the revocation: not trusted beyond this request',
    );
  });

  it('caches nothing without a signal', async () => {
    const lookups = countKeyLookups(store.apiKeys);
    const keys = new ApiKeyService({ store: lookups.store, cacheTtlMs: 60_000 });
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    assert.equal(await asksStore(lookups, () => keys.authenticate(key)), true);
  });
});
