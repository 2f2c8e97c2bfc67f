import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SQLITE_FILE } from '../../src/store/open-store.js';
import { testStoreKind } from '../helpers/postgres.js';
import { startTestServer } from '../helpers/test-server.js';

describe('the HTTP suite runs on the store it claims', () => {
  it(`serves from ${testStoreKind()}`, async () => {
    const server = await startTestServer();
    try {
      assert.equal((await (await server.client()).getOrCreate({ user_group_id: 'probe', name: 'Probe' })).status, 200);
      // SQLite keeps the group in the data dir's database file; PostgreSQL leaves the data dir without one.
      assert.equal(existsSync(join(server.dataDir, SQLITE_FILE)), testStoreKind() === 'sqlite');
    } finally {
      await server.close();
    }
  });
});
