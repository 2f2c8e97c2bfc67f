import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import { ServiceError } from '../../src/kernel/errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { NewUserGroup } from '../../src/store/store.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { newGroup } from '../helpers/new-group.js';
import { revokeKey } from '../helpers/api-key-writes.js';
import { insertGroup } from '../helpers/group-writes.js';

function group(providedId: string, bytes = 64): NewUserGroup {
  const at = new Date().toISOString();
  return newGroup(providedId, { name: providedId, properties: { filler: randomBytes(bytes).toString('hex') }, at });
}

const unavailable = (error: unknown) =>
  error instanceof ServiceError && error.code === 'unavailable' && error.details.retryAfterSeconds !== undefined;

/** The store's own connection, for the pragmas that make SQLite refuse writes as a full or read-only disk would. */
const connectionOf = (store: SqliteStore) => (store as unknown as { db: Database.Database }).db;

/**
 * SQLite refusing a write for want of space (SQLITE_FULL) or because it may not
 * write (SQLITE_READONLY) is the store's state, not the request's fault: every
 * write it refuses is `unavailable` with a Retry-After, /readyz (ping) fails
 * until a write goes through again (or a few seconds pass without another
 * refusal), and a write is acknowledged only if it is in the database. The errors are real SQLite errors: PRAGMA max_page_count
 * caps the file where a full disk would, PRAGMA query_only refuses writes as
 * a read-only file does.
 */
describe('SQLite store: a full or read-only database', () => {
  it('answers unavailable, never acknowledges a write it did not keep, fails ping, and recovers once writes fit', async () => {
    const dir = makeTempDir('ugs-full');
    const { store } = await SqliteStore.open({ path: join(dir.path, 'full.sqlite') });
    try {
      const db = connectionOf(store);
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages + 2}`);

      const acknowledged: string[] = [];
      let refusals = 0;
      for (let round = 0; round < 40 && refusals === 0; round++) {
        // Several writes in one turn share a transaction: the refusal must not take the others' acknowledgements with it.
        const ids = Array.from({ length: 8 }, (_, i) => `g-${round}-${i}`);
        const outcomes = await Promise.allSettled(ids.map((id) => insertGroup(store, group(id, 512))));
        outcomes.forEach((outcome, i) => {
          if (outcome.status === 'fulfilled') acknowledged.push(ids[i]!);
          else {
            assert.ok(unavailable(outcome.reason), `refused as unavailable with Retry-After, got ${String(outcome.reason)}`);
            refusals += 1;
          }
        });
      }
      assert.ok(refusals > 0, 'the capped file refused a write');
      await assert.rejects(store.ping(), unavailable, 'not ready while writes do not fit');
      for (const id of acknowledged)
        assert.ok(await store.userGroups.findUserGroup('Customer', id), `${id} was acknowledged, so it is stored`);

      db.pragma('max_page_count = 1000000');
      assert.equal((await insertGroup(store, group('after'))).created, true);
      await store.ping(); // ready again: a write went through
    } finally {
      await store.close();
      dir.remove();
    }
  });

  it('answers unavailable for writes to a database it may not write', async () => {
    const dir = makeTempDir('ugs-readonly');
    const { store } = await SqliteStore.open({ path: join(dir.path, 'ro.sqlite') });
    try {
      connectionOf(store).pragma('query_only = 1');
      await assert.rejects(insertGroup(store, group('refused')), unavailable);
      await assert.rejects(revokeKey(store, 'key_0123456789abcdef', new Date().toISOString()), unavailable);
      await assert.rejects(store.ping(), unavailable);
      connectionOf(store).pragma('query_only = 0');
      await insertGroup(store, group('accepted'));
      await store.ping();
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
