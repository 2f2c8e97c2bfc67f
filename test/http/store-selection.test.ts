import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { build } from '../helpers/build.js';
import { testStoreKind } from '../helpers/postgres.js';

describe('the HTTP suite runs on the store it claims', () => {
  it(`serves from ${testStoreKind()}`, async (t) => {
    const server = await build(t);
    const expected = testStoreKind() === 'postgres' ? PostgresStore : SqliteStore;
    assert.ok(server.services.store instanceof expected);
    assert.equal((await server.api.getOrCreate({ user_group_id: 'probe', name: 'Probe' })).status, 200);
  });
});
