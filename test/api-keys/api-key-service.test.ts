import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiKeyService } from '../../src/api-keys/api-key-service.js';
import { apiKeyFormat } from '../../src/api-keys/api-key.js';
import { ServiceError } from '../../src/kernel/errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { asksStore, countKeyLookups } from '../helpers/key-lookups.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type Database from 'better-sqlite3';

const unauthenticated = (error: unknown) => error instanceof ServiceError && error.code === 'unauthenticated';

describe('ApiKeyService', () => {
  const dir = makeTempDir('ugs-keys');
  let store: SqliteStore;
  let now = new Date('2026-01-01T00:00:00Z');
  let keys: ApiKeyService;
  before(async () => {
    store = (await SqliteStore.open({ path: join(dir.path, 'k.sqlite') })).store;
    keys = new ApiKeyService({ store: store.apiKeys, now: () => now, cacheTtlMs: 0 });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('stores only the hash of a new key and authenticates it', async () => {
    const { record, key } = await keys.create({ environment: 'Testing', access: 'read-only', name: 'ci' });
    assert.equal(JSON.stringify(await store.apiKeys.listApiKeys()).includes(key), false);
    const principal = await keys.authenticate(key);
    assert.deepEqual(principal, { keyId: record.id, environment: 'Testing', access: 'read-only' });
  });

  it('refuses malformed, unknown and revoked keys', async () => {
    await assert.rejects(keys.authenticate('nope'), unauthenticated);
    await assert.rejects(keys.authenticate(apiKeyFormat.generate()), unauthenticated, 'well-formed but never issued');
    const { record, key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    assert.equal(await keys.revoke(record.id), true);
    await assert.rejects(keys.authenticate(key), /revoked/);
  });

  it('records use at most once per resolution window', async () => {
    const { record, key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    await keys.authenticate(key);
    const firstUse = (await store.apiKeys.findApiKeyByHash(record.keyHash))?.lastUsedAt;
    assert.equal(firstUse, now.toISOString());
    now = new Date(now.getTime() + 30_000);
    await keys.authenticate(key);
    assert.equal((await store.apiKeys.findApiKeyByHash(record.keyHash))?.lastUsedAt, firstUse);
    now = new Date(now.getTime() + 60_000);
    await keys.authenticate(key);
    assert.equal((await store.apiKeys.findApiKeyByHash(record.keyHash))?.lastUsedAt, now.toISOString());
  });

  it('drops a cached key as soon as another connection revokes it, well within the TTL', async () => {
    // A second connection to the same file: what the CLI or another worker process holds.
    const elsewhereStore = (await SqliteStore.open({ path: join(dir.path, 'k.sqlite') })).store;
    try {
      const clock = new Date('2026-02-01T00:00:00Z');
      const lookups = countKeyLookups(store.apiKeys);
      const cached = new ApiKeyService({
        store: lookups.store,
        revocations: store.apiKeys.keyRevocations(),
        now: () => clock,
        cacheTtlMs: 60_000,
      });
      const elsewhere = new ApiKeyService({ store: elsewhereStore.apiKeys, now: () => clock, cacheTtlMs: 0 });
      const { record, key } = await cached.create({ environment: 'Customer', access: 'read-write' });
      await cached.authenticate(key);
      assert.equal(await asksStore(lookups, () => cached.authenticate(key)), false, 'cached');
      await elsewhere.revoke(record.id);
      // The clock has not moved: only the revocation can have dropped the entry.
      await assert.rejects(cached.authenticate(key), /revoked/);

      const second = await cached.create({ environment: 'Customer', access: 'read-write' });
      await cached.authenticate(second.key);
      await cached.revoke(second.record.id);
      await assert.rejects(cached.authenticate(second.key), /revoked/, 'revoked through this process');
    } finally {
      await elsewhereStore.close();
    }
  });

  it('lets a valid key in when its use cannot be recorded because the store refuses writes (disk full, read-only)', async () => {
    const { record, key } = await keys.create({ environment: 'Customer', access: 'read-write' });
    const db = (store as unknown as { db: Database.Database }).db;
    db.pragma('query_only = 1'); // SQLite now refuses every write as it would on a read-only disk
    try {
      now = new Date(now.getTime() + 3_600_000);
      assert.equal((await keys.authenticate(key)).keyId, record.id, 'reading needs no write');
    } finally {
      db.pragma('query_only = 0');
    }
  });

  it('answers a cached key without a store lookup until its entry expires, and still records its use once per window', async () => {
    let clock = new Date('2026-03-01T00:00:00Z');
    const lookups = countKeyLookups(store.apiKeys);
    const cached = new ApiKeyService({
      store: lookups.store,
      revocations: store.apiKeys.keyRevocations(),
      now: () => clock,
      cacheTtlMs: 100_000,
      lastUsedResolutionMs: 60_000,
    });
    const { record, key } = await cached.create({ environment: 'Testing', access: 'read-write' });
    const principal = await cached.authenticate(key);
    assert.equal(await asksStore(lookups, async () => assert.deepEqual(await cached.authenticate(key), principal)), false, 'cached');
    assert.equal(
      await asksStore(lookups, () => assert.rejects(cached.authenticate('nope'), unauthenticated)),
      false,
      'malformed: refused before any lookup',
    );
    assert.equal(
      await asksStore(lookups, () => assert.rejects(cached.authenticate(apiKeyFormat.generate()), unauthenticated)),
      true,
      'well-formed but unknown: never cached',
    );

    clock = new Date(clock.getTime() + 60_000);
    assert.equal(await asksStore(lookups, () => cached.authenticate(key)), false, 'a use is due: recorded, still without a lookup');
    assert.equal((await store.apiKeys.findApiKeyByHash(record.keyHash))?.lastUsedAt, clock.toISOString());

    clock = new Date(clock.getTime() + 39_999);
    assert.equal(await asksStore(lookups, () => cached.authenticate(key)), false, 'just inside the TTL (100 s from the first lookup)');
    clock = new Date(clock.getTime() + 1);
    assert.equal(await asksStore(lookups, () => cached.authenticate(key)), true, 'the cache entry expired');

    await cached.revoke(record.id);
    await assert.rejects(cached.authenticate(key), /revoked/, 'revoked through this process');
  });
});
