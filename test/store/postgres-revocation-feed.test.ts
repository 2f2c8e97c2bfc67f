import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { EmbedRevocation } from '../../src/consequences/embed-revocation.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { newGroup } from '../helpers/new-group.js';
import { deleteGroup, insertGroup, revokeSession } from '../helpers/group-writes.js';

/**
 * The revocation feed hands out `sequence > cursor`. On PostgreSQL a sequence
 * value is drawn when a row is inserted, not when its transaction commits: if
 * two revocations could commit out of order, a reader's cursor could pass an
 * entry it never saw, and a verifier polling the feed would never learn of that
 * revocation. (SQLite serializes writers, so its order is commit order.)
 */
describe('PostgreSQL revocation feed under concurrent revocations', () => {
  it('never skips an entry that was numbered before, but committed after, one a reader has seen', async () => {
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
      // Test-only: the deletion of group "slow" stalls after its revocation is numbered and before it commits.
      await admin.query(`CREATE FUNCTION stall_slow() RETURNS trigger LANGUAGE plpgsql AS $$
                           BEGIN IF NEW.provided_id = 'slow' THEN PERFORM pg_sleep(1.5); END IF; RETURN NEW; END $$`);
      await admin.query('CREATE TRIGGER stall_slow AFTER INSERT ON embed_revocations FOR EACH ROW EXECUTE FUNCTION stall_slow()');
      const at = new Date().toISOString();
      await insertGroup(store, newGroup('slow', { name: 'Slow', at }));
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const fast = {
        sessionId: 'es_fast',
        environment: 'Customer' as const,
        teamId: 1,
        providedId: 'fast',
        tokenVersion: 'BBBBBBBBBBBBBBBB',
        createdAt: at,
        expiresAt,
        revokedAt: null,
      };

      const slow = deleteGroup(store, 'Customer', 'slow', at);
      await until(admin, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'");
      // Meanwhile another revocation, numbered after it.
      await revokeSession(store, fast, at, { keyId: 'key_x', fields: [] });

      // A verifier polls and moves its cursor past what it saw; then polls again.
      const first = await store.embedSessions.listEmbedRevocations('Customer', 0, 100, at);
      const cursor = Math.max(0, ...first.map((r) => r.sequence));
      await slow;
      const next = await store.embedSessions.listEmbedRevocations('Customer', cursor, 100, at);

      const seen = (entries: EmbedRevocation[]) => entries.map((r) => r.providedId).sort();
      assert.deepEqual(
        seen([...first, ...next]),
        ['fast', 'slow'],
        `the verifier learned of both revocations (first poll: ${JSON.stringify(seen(first))})`,
      );
      assert.deepEqual(seen(await feedOf(store)), ['fast', 'slow']);
    } finally {
      await admin.end();
      await store.close();
      await database.drop();
    }
  });
});

async function feedOf(store: Store): Promise<EmbedRevocation[]> {
  return store.embedSessions.listEmbedRevocations('Customer', 0, 100, new Date(0).toISOString());
}

/** Polls `query` (one row, column n) until n > 0, for at most 10 s. */
async function until(client: pg.Client, query: string): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if ((await client.query<{ n: number }>(query)).rows[0]!.n > 0) return;
    await sleep(20);
  }
  assert.fail(`never true: ${query}`);
}
