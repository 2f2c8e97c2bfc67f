import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ServiceError } from '../../src/kernel/errors.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { asUnavailable } from '../../src/store/postgres/transient-errors.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { storeConformance } from './store-conformance.js';
import { migrationHistory } from '../../src/store/migrations/index.js';
import { newGroup } from '../helpers/new-group.js';
import { insertKey, revokeKey } from '../helpers/api-key-writes.js';
import { insertGroup, updateGroup } from '../helpers/group-writes.js';
import { NO_AUDIT_DETAIL } from '../../src/audit/audit.js';
import { tokenRotated } from '../../src/user-groups/user-group-consequences.js';

const databases: TestDatabase[] = [];
storeConformance({
  name: 'PostgreSQL',
  async open() {
    const database = await createTestDatabase({ migrated: true });
    databases.push(database);
    return (await PostgresStore.open({ connectionString: database.url, poolSize: 10, statementTimeoutMs: 5000, connectTimeoutMs: 2000 }))
      .store;
  },
  async reopen() {
    return (
      await PostgresStore.open({ connectionString: databases.at(-1)!.url, poolSize: 10, statementTimeoutMs: 5000, connectTimeoutMs: 2000 })
    ).store;
  },
  async cleanup() {
    for (const database of databases.splice(0)) await database.drop();
  },
});

describe('PostgreSQL specifics', () => {
  it('fails only the create, update or rotation PostgreSQL refuses when those made together share a statement', async () => {
    const database = await createTestDatabase({ migrated: true });
    const { store } = await PostgresStore.open({
      connectionString: database.url,
      poolSize: 2,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 2000,
    });
    try {
      const group = (providedId: string, name: string) => newGroup(providedId, { name });
      // PostgreSQL text cannot hold U+0000 (the HTTP layer refuses control characters before this).
      const outcomes = await Promise.allSettled([
        insertGroup(store, group('batch-a', 'A')),
        insertGroup(store, group('batch-bad', 'nul\u0000name')),
        insertGroup(store, group('batch-b', 'B')),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.equal((await store.userGroups.findUserGroup('Customer', 'batch-a'))?.name, 'A');
      assert.equal((await store.userGroups.findUserGroup('Customer', 'batch-b'))?.name, 'B');
      assert.equal(await store.userGroups.findUserGroup('Customer', 'batch-bad'), null);

      // Updates made together share a statement too; the same rule holds.
      const updates = await Promise.allSettled([
        updateGroup(store, 'Customer', 'batch-a', { name: 'A2', updatedAt: '2026-01-02T00:00:00.000Z' }),
        updateGroup(store, 'Customer', 'batch-b', { name: 'nul\u0000again', updatedAt: '2026-01-02T00:00:00.000Z' }),
        updateGroup(store, 'Customer', 'batch-missing', { name: 'M', updatedAt: '2026-01-02T00:00:00.000Z' }),
      ]);
      assert.deepEqual(
        updates.map((o) => o.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.equal((await store.userGroups.findUserGroup('Customer', 'batch-a'))?.name, 'A2');
      assert.equal((await store.userGroups.findUserGroup('Customer', 'batch-b'))?.name, 'B');
      assert.equal((updates[2] as PromiseFulfilledResult<unknown>).value, null);

      // And rotations: a time PostgreSQL cannot read fails that one alone (its consequences are built for a time
      // that reads: the domain cannot build them for this one, so the store would never see it).
      const [a, b] = await Promise.all(['batch-a', 'batch-b'].map(async (id) => (await store.userGroups.findUserGroup('Customer', id))!));
      const rotate = (g: typeof a, updatedAt: string) => {
        const replacement = {
          teamId: g!.teamId,
          environment: g!.environment,
          providedId: g!.providedId,
          expectedTokenHash: g!.tokenHash,
          tokenHash: randomBytes(32),
          tokenCiphertext: randomBytes(60),
        };
        const consequences = tokenRotated({ ...replacement, updatedAt: '2026-01-03T00:00:00.000Z' }, NO_AUDIT_DETAIL);
        return store.userGroups.replaceToken({ ...replacement, updatedAt }, consequences);
      };
      const rotations = await Promise.allSettled([rotate(a, '2026-01-03T00:00:00.000Z'), rotate(b, 'not a time')]);
      assert.deepEqual(
        rotations.map((o) => o.status),
        ['fulfilled', 'rejected'],
      );
      assert.equal((await store.userGroups.findUserGroup('Customer', 'batch-a'))?.updatedAt, '2026-01-03T00:00:00.000Z');
      assert.deepEqual((await store.userGroups.findUserGroup('Customer', 'batch-b'))?.tokenHash, b!.tokenHash);
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it('migrates once when many replicas start together, and each finds the schema complete', async () => {
    const database = await createTestDatabase();
    try {
      const options = { connectionString: database.url, poolSize: 2, statementTimeoutMs: 10_000, connectTimeoutMs: 5000 };
      const opened = await Promise.all(Array.from({ length: 6 }, () => PostgresStore.open(options)));
      const applied = opened.flatMap((o) => o.appliedMigrations);
      assert.deepEqual(applied, Object.keys(migrationHistory), 'exactly one replica applied the migrations');
      for (const { store } of opened) assert.equal(await store.userGroups.findUserGroup('Customer', 'none'), null);
      await Promise.all(opened.map((o) => o.store.close()));
      const again = await PostgresStore.open(options);
      assert.deepEqual(again.appliedMigrations, []);
      await again.store.close();
    } finally {
      await database.drop();
    }
  });

  it('fails to open with one clear error when the database is unreachable', async () => {
    const error = await PostgresStore.open({
      connectionString: 'postgres://nobody:secret-password@127.0.0.1:1/nowhere',
      poolSize: 1,
      statementTimeoutMs: 1000,
      connectTimeoutMs: 1000,
    }).then(
      () => assert.fail('opened an unreachable database'),
      (e: Error) => e,
    );
    assert.equal(error.name, 'StartupError');
    assert.match(error.message, /Cannot reach PostgreSQL at 127\.0\.0\.1:1\/nowhere/);
    assert.equal(error.message.includes('secret-password'), false, 'the password is not in the message');
  });

  it('moves the revocation epoch when another connection revokes a key; undefined while its session is down, then a new epoch', async () => {
    const database = await createTestDatabase({ migrated: true });
    const options = { connectionString: database.url, poolSize: 2, statementTimeoutMs: 5000, connectTimeoutMs: 2000 };
    const { store: here } = await PostgresStore.open(options);
    const { store: elsewhere } = await PostgresStore.open(options);
    const admin = new pg.Client(database.url);
    await admin.connect();
    const signal = here.apiKeys.keyRevocations();
    /** Polls until `done` holds of the epoch (a notification travels asynchronously); the epoch then. */
    const epochOnce = async (what: string, done: (epoch: number | undefined) => boolean) => {
      for (let waited = 0; waited < 10_000; waited += 10) {
        const epoch = signal.epoch();
        if (done(epoch)) return epoch;
        await sleep(10);
      }
      return assert.fail(`the epoch never ${what}`);
    };
    try {
      assert.equal(signal.epoch(), undefined, 'not listening yet: nothing may be cached');
      const first = await epochOnce('became known', (e) => e !== undefined);
      const key = {
        id: 'key_0123456789abcdef',
        name: null,
        environment: 'Customer' as const,
        access: 'read-write' as const,
        keyHash: randomBytes(32),
        createdAt: '2026-01-01T00:00:00.000Z',
        lastUsedAt: null,
        revokedAt: null,
      };
      await insertKey(elsewhere, key);
      assert.equal(signal.epoch(), first, 'creating a key is no revocation');
      assert.equal(await revokeKey(elsewhere, key.id, '2026-01-02T00:00:00.000Z'), true);
      const second = await epochOnce('moved after the revocation', (e) => e !== undefined && e !== first);
      assert.equal(await revokeKey(elsewhere, key.id, '2026-01-03T00:00:00.000Z'), false, 'revoking again changes nothing');

      const { rows } = await admin.query<{ killed: boolean }>(
        "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'user-group-service key revocations'",
      );
      assert.equal(rows.filter((r) => r.killed).length, 1, "one listening session: this process's");
      await epochOnce('became unknown while the session was gone', (e) => e === undefined);
      const third = await epochOnce('came back', (e) => e !== undefined);
      assert.ok(third !== first && third !== second, 'a new session, a new epoch: notifications may have been missed meanwhile');
    } finally {
      await admin.end();
      await here.close();
      await elsewhere.close();
      await database.drop();
    }
  });

  it('answers unavailable, not a bare error, while the database refuses writes (read-only: 25006; disk full: 53100)', async () => {
    const database = await createTestDatabase({ migrated: true });
    const { store } = await PostgresStore.open({
      connectionString: database.url,
      poolSize: 2,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 2000,
    });
    const admin = new pg.Client(database.url);
    await admin.connect();
    try {
      const name = new URL(database.url).pathname.slice(1);
      // As a hot standby or a database an operator made read-only refuses writes: new sessions start read-only.
      await admin.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const unavailable = (error: unknown) =>
        error instanceof ServiceError && error.code === 'unavailable' && error.details.retryAfterSeconds !== undefined;
      const key = {
        id: 'key_00000000000000ff',
        name: null,
        environment: 'Customer' as const,
        access: 'read-write' as const,
        keyHash: randomBytes(32),
        createdAt: '2026-01-01T00:00:00.000Z',
        lastUsedAt: null,
        revokedAt: null,
      };
      await assert.rejects(insertKey(store, key), unavailable);
      assert.equal(await store.apiKeys.findApiKeyByHash(key.keyHash), null, 'reads still answer');

      // A full disk cannot be made here; PostgreSQL reports it as SQLSTATE 53100.
      assert.ok(unavailable(asUnavailable(Object.assign(new Error('could not extend file'), { code: '53100' }))));
    } finally {
      await admin.end();
      await store.close();
      await database.drop();
    }
  });

  it('keeps every statement out of transactions that span round trips (no idle-in-transaction sessions)', async () => {
    const database = await createTestDatabase({ migrated: true });
    const { store } = await PostgresStore.open({
      connectionString: database.url,
      poolSize: 4,
      statementTimeoutMs: 5000,
      connectTimeoutMs: 2000,
    });
    const probe = new pg.Client(database.url);
    await probe.connect();
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.userGroups.findUserGroup('Customer', `x${i}`)));
      const { rows } = await probe.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
      );
      assert.equal(rows[0].n, 0);
    } finally {
      await probe.end();
      await store.close();
      await database.drop();
    }
  });
});
