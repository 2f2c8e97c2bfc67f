import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SQLITE_FILE } from '../../../src/store/open-store.js';
import { build } from '../../helpers/build.js';
import { testStoreKind } from '../../helpers/postgres.js';

describe('the HTTP suite runs on the store it claims', () => {
  it(`serves from ${testStoreKind()}`, async (t) => {
    const server = await build(t);
    assert.equal((await server.api.getOrCreate({ user_group_id: 'probe', name: 'Probe' })).status, 200);
    // SQLite keeps the group in the data dir's database file; PostgreSQL leaves the data dir without one.
    assert.equal(existsSync(join(server.dataDir, SQLITE_FILE)), testStoreKind() === 'sqlite');
  });
});
