import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import { SqliteDatabase } from '../../src/store/sqlite/sqlite-driver.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { storeConformance } from './store-conformance.js';
import { sqliteMigrations } from '../../src/store/sqlite/migrations/index.js';

const dirs: ReturnType<typeof makeTempDir>[] = [];
storeConformance({
  name: 'SQLite',
  async open() {
    const dir = makeTempDir('ugs-sqlite');
    dirs.push(dir);
    return (await SqliteStore.open({ path: join(dir.path, 'store.sqlite') })).store;
  },
  async reopen() {
    return (await SqliteStore.open({ path: join(dirs.at(-1)!.path, 'store.sqlite') })).store;
  },
  async cleanup() {
    for (const dir of dirs.splice(0)) dir.remove();
  },
});

describe('SQLite specifics', () => {
  it('migrates an empty file once, then finds nothing to do', async () => {
    const dir = makeTempDir('ugs-sqlite');
    try {
      const path = join(dir.path, 'store.sqlite');
      const first = await SqliteStore.open({ path });
      assert.deepEqual(first.appliedMigrations, Object.keys(sqliteMigrations));
      await first.store.close();
      const second = await SqliteStore.open({ path });
      assert.deepEqual(second.appliedMigrations, []);
      await second.store.close();
    } finally {
      dir.remove();
    }
  });

  it('runs in WAL mode with synchronous=FULL, so acknowledged writes survive a crash', async () => {
    const dir = makeTempDir('ugs-sqlite');
    try {
      const path = join(dir.path, 'store.sqlite');
      const { store } = await SqliteStore.open({ path });
      const probe = new SqliteDatabase(path, { readonly: true });
      assert.equal(probe.pragma('journal_mode', { simple: true }), 'wal');
      probe.close();
      // synchronous is per connection: read it through the store's own connection.
      assert.equal((store as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true }), 2);
      await store.close();
    } finally {
      dir.remove();
    }
  });
});
