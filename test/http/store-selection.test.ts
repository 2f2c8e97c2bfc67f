import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { testStoreKind } from '../helpers/postgres.js';
import { startTestServer } from '../helpers/test-server.js';

describe('the HTTP suite runs on the store it claims', () => {
  it(`serves from ${testStoreKind()}`, async () => {
    const server = await startTestServer();
    try {
      const expected = testStoreKind() === 'postgres' ? PostgresStore : SqliteStore;
      assert.ok(server.services.store instanceof expected);
      assert.equal((await (await server.client()).getOrCreate({ user_group_id: 'probe', name: 'Probe' })).status, 200);
    } finally {
      await server.close();
    }
  });
});
