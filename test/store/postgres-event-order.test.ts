import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { EventRecord } from '../../src/events/event.js';
import type { NewUserGroup } from '../../src/user-groups/user-group-store.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { newGroup } from '../helpers/new-group.js';
import { insertGroup } from '../helpers/group-writes.js';

/**
 * GET /api/events hands out `sequence > cursor`. On PostgreSQL a sequence
 * value is drawn when a row is inserted, not when its transaction commits: if
 * two changes could commit out of order, a poller's cursor could pass an event
 * it never saw. (SQLite serializes writers, so its order is commit order.)
 */
describe('PostgreSQL events under concurrent changes', () => {
  it('never skips an event that was numbered before, but committed after, one a reader has seen', async () => {
    const database = await createTestDatabase({ migrated: true });
    const { store } = await PostgresStore.open({
      connectionString: database.url,
      poolSize: 4,
      statementTimeoutMs: 10_000,
      connectTimeoutMs: 2000,
    });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Test-only: the creation of group "slow" stalls after its event is numbered and before it commits.
      await admin.query(`CREATE FUNCTION stall_slow() RETURNS trigger LANGUAGE plpgsql AS $$
                           BEGIN IF NEW.data->>'user_group_id' = 'slow' THEN PERFORM pg_sleep(1.5); END IF; RETURN NEW; END $$`);
      await admin.query('CREATE TRIGGER stall_slow AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION stall_slow()');
      const at = new Date().toISOString();
      const group = (providedId: string): NewUserGroup => newGroup(providedId, { name: providedId, at });

      const slow = insertGroup(store, group('slow'));
      await until(admin, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'");
      // Meanwhile another change, numbered after it, and a poller that reads what is committed.
      let fastDone = false;
      const fast = insertGroup(store, group('fast')).finally(() => (fastDone = true));
      // It either commits at once (then the poll below sees it) or waits on a lock for "slow" to commit.
      await until(admin, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'", () => fastDone);
      const first = await store.events.listEvents('Customer', 0, 100, new Date(0).toISOString());
      const cursor = Math.max(0, ...first.map((e) => e.sequence));
      await Promise.all([slow, fast]);
      const next = await store.events.listEvents('Customer', cursor, 100, new Date(0).toISOString());

      const seen = (events: EventRecord[]) => events.map((e) => e.data.user_group_id).sort();
      assert.deepEqual(
        seen([...first, ...next]),
        ['fast', 'slow'],
        `the poller saw both events (first poll: ${JSON.stringify(seen(first))})`,
      );
    } finally {
      await admin.end();
      await store.close();
      await database.drop();
    }
  });
});

/** Polls `query` (one row, column n) until n > 0 or `done()`, for at most 10 s. */
async function until(client: pg.Client, query: string, done = () => false): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (done() || (await client.query<{ n: number }>(query)).rows[0]!.n > 0) return;
    await sleep(20);
  }
  assert.fail(`never true: ${query}`);
}
