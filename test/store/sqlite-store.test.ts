import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import SqliteDatabase from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { storeConformance } from './store-conformance.js';
import { shippedMigrationNames } from '../../src/store/sqlite/migrate-sqlite.js';
import { migrationHistory } from '../../src/store/migrations/index.js';
import { newGroup } from '../helpers/new-group.js';
import { insertGroup } from '../helpers/group-writes.js';

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
      assert.deepEqual(first.appliedMigrations, Object.keys(migrationHistory));
      await first.store.close();
      const second = await SqliteStore.open({ path });
      assert.deepEqual(second.appliedMigrations, []);
      await second.store.close();
    } finally {
      dir.remove();
    }
  });

  it('names each migration after its file, so an up-to-date store is recognised without loading the migrator', () => {
    assert.deepEqual(shippedMigrationNames(), Object.keys(migrationHistory));
  });

  it("writes a group-commit batch to the WAL only: no savepoint's statement journal spills to a temporary file", async (t) => {
    if (!existsSync('/proc/self/io')) return t.skip('needs /proc/self/io to count write calls');
    const dir = makeTempDir('ugs-sqlite');
    try {
      const path = join(dir.path, 'store.sqlite');
      const { store } = await SqliteStore.open({ path });
      const db = (store as unknown as { db: Database.Database }).db;
      db.pragma('wal_autocheckpoint = 0');
      const at = new Date().toISOString();
      const group = (i: number) =>
        newGroup(`spill-${i}`, {
          name: `Group ${i}`,
          mapping: { sales: 'pg-eu-1' },
          properties: { plan: 'pro', region: 'eu' },
          tokenCiphertext: randomBytes(90),
          at,
        });
      const audit = { keyId: 'key_spill', fields: ['name', 'mapping', 'properties'], clientAddress: '127.0.0.1' };
      for (let i = 0; i < 300; i++) await insertGroup(store, group(i), audit);
      const writeCalls = () => Number(/^syscw: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
      const walBytes = () => statSync(`${path}-wal`).size;
      const [callsBefore, walBefore] = [writeCalls(), walBytes()];
      await Promise.all(Array.from({ length: 32 }, (_, i) => insertGroup(store, group(1000 + i), audit)));
      const frames = (walBytes() - walBefore) / (4096 + 24);
      // SQLite writes a WAL frame's header and its page as two calls; a spilled journal added two per page each write touched (~27 calls a
      // create).
      assert.ok(writeCalls() - callsBefore <= 2 * frames + 8, `${writeCalls() - callsBefore} write calls for ${frames} WAL frames`);
      await store.close();
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
