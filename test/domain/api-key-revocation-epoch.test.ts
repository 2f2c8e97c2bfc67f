import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiKeyService } from '../../src/domain/api-key-service.js';
import type { KeyRevocationSignal } from '../../src/domain/key-revocation-signal.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ApiKeyStore } from '../../src/domain/api-key-store.js';
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

  function service(signal: KeyRevocationSignal, over: ApiKeyStore = store.apiKeys): ApiKeyService {
    return new ApiKeyService({ store: over, revocations: signal, cacheTtlMs: 60_000 });
  }

  it('uses a cached key while the epoch holds, and drops it when the epoch moves', async () => {
    const signal = new ManualSignal();
    const keys = service(signal);
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    const principal = await keys.authenticate(key);
    assert.deepEqual(keys.cachedPrincipal(key), principal);
    signal.value = 2;
    assert.equal(keys.cachedPrincipal(key), undefined, 'cached under epoch 1');
    await keys.authenticate(key);
    assert.deepEqual(keys.cachedPrincipal(key), principal, 'looked up again and cached under epoch 2');
  });

  it('caches nothing and uses nothing while the signal cannot tell', async () => {
    const signal = new ManualSignal();
    const keys = service(signal);
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    signal.value = undefined;
    assert.equal(keys.cachedPrincipal(key), undefined, 'an entry from before is not used');
    await keys.authenticate(key);
    assert.equal(keys.cachedPrincipal(key), undefined, 'nor is a new one made');
    signal.value = 3;
    assert.equal(keys.cachedPrincipal(key), undefined, 'the signal is back with a new epoch: the store is asked first');
    await keys.authenticate(key);
    assert.ok(keys.cachedPrincipal(key));
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
    const keys = service(signal, revokingDuringLookup);
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    assert.equal(keys.cachedPrincipal(key), undefined, 'the answer may predate the revocation: not trusted beyond this request');
  });

  it('caches nothing without a signal', async () => {
    const keys = new ApiKeyService({ store: store.apiKeys, cacheTtlMs: 60_000 });
    const { key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    assert.equal(keys.cachedPrincipal(key), undefined);
  });
});
