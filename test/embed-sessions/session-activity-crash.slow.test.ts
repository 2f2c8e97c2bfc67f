import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Sandbox, stopServer } from '../cli/cli-support.js';
import type { ServerProcess } from '../helpers/cli.js';
import { ApiClient } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

/**
 * What a crash can lose now that minting and renewing write nothing: the
 * mints and renewals a process counted since its last flush (at most
 * UGS_ACTIVITY_FLUSH_MS of them, 5 s by default), never a revocation (written
 * before its 200).
 * A real `ugs serve` per phase, stopped with SIGTERM or killed with SIGKILL.
 * A flush interval of 60 s keeps the periodic flush out of the way, so each
 * phase's count is exact.
 */

const SECRET = 'activity-crash-test-server-secret-0123456789';
/** Longer than any phase: only shutdown (or nothing, on SIGKILL) writes the counts. */
const NO_PERIODIC_FLUSH = { UGS_ACTIVITY_FLUSH_MS: '60000' };

interface StoreUnderTest {
  env: Record<string, string>;
  dataDir: string;
  /** Mints and renewals stored for the group (all hours), and whether the session is stored revoked and in the feed. */
  read(teamId: number, sessionId: string): Promise<{ minted: number; renewed: number; revoked: boolean; inFeed: boolean }>;
}

function activityCrashSuite(storeName: string, setup: (sandbox: Sandbox) => Promise<StoreUnderTest>, teardown: () => Promise<void>) {
  describe(`session counts across a crash, on ${storeName}`, () => {
    const sandbox = new Sandbox();
    after(async () => {
      await sandbox.cleanup();
      await teardown();
    });

    it('SIGTERM writes every count; SIGKILL loses only the mints and renewals since the last flush, never a revocation; a short interval flushes while serving', async () => {
      const store = await setup(sandbox);
      const { key } = await sandbox.createKey(store.dataDir, [], store.env);
      const mint = async (server: ServerProcess, n: number) => {
        const api = new ApiClient(server.url, key);
        const minted: { session_id: string; team_id: number; token: string }[] = [];
        for (let i = 0; i < n; i++) {
          const answer = await api.call('POST', { user_group_id: 'crash-acme' }, { path: '/api/embed_sessions' });
          assert.equal(answer.status, 201, JSON.stringify(answer.json));
          minted.push((answer.json as { embed_session: (typeof minted)[number] }).embed_session);
        }
        return minted;
      };
      const renew = async (server: ServerProcess, tokens: string[]) => {
        const api = new ApiClient(server.url, key);
        for (const token of tokens) {
          const answer = await api.call('POST', { token }, { path: '/api/embed_sessions/renew' });
          assert.equal(answer.status, 201, JSON.stringify(answer.json));
        }
      };

      const counts = async (teamId: number) => {
        const read = await store.read(teamId, '');
        return [read.minted, read.renewed];
      };
      let server = await sandbox.serve(store.dataDir, { ...store.env, ...NO_PERIODIC_FLUSH });
      assert.equal((await new ApiClient(server.url, key).getOrCreate({ user_group_id: 'crash-acme', name: 'Acme' })).status, 200);
      const first = await mint(server, 20);
      await renew(server, [first[0]!.token, first[0]!.token, first[1]!.token, first[2]!.token]);
      const teamId = first[0]!.team_id;
      assert.deepEqual(await counts(teamId), [0, 0], 'counted in memory only while serving');
      assert.equal(await stopServer(server, 'SIGTERM'), 0, server.output().slice(-2000));
      assert.deepEqual(await counts(teamId), [20, 4], 'shutdown wrote every count, mints and renewals');

      server = await sandbox.serve(store.dataDir, { ...store.env, ...NO_PERIODIC_FLUSH });
      const second = await mint(server, 15);
      await renew(server, [second[5]!.token, second[6]!.token, second[7]!.token]);
      const ended = second[3]!;
      const revoke = await new ApiClient(server.url, key).call('DELETE', undefined, { path: `/api/embed_sessions/${ended.session_id}` });
      assert.equal(revoke.status, 200, JSON.stringify(revoke.json));
      await server.stop('SIGKILL');
      const afterKill = await store.read(teamId, ended.session_id);
      assert.equal(afterKill.minted, 20, 'the 15 mints counted since the last flush are what the crash lost');
      assert.equal(afterKill.renewed, 4, 'and the 3 renewals');
      assert.ok(afterKill.revoked && afterKill.inFeed, 'the revocation answered before the kill is stored, and in the feed');

      server = await sandbox.serve(store.dataDir, { ...store.env, UGS_ACTIVITY_FLUSH_MS: '200' });
      const api = new ApiClient(server.url, key);
      const introspected = await api.call('POST', { token: ended.token }, { path: '/api/embed_sessions/introspect' });
      assert.deepEqual(introspected.json, { active: false }, 'the ended session stays ended after the crash');
      const live = await api.call('POST', { token: second[4]!.token }, { path: '/api/embed_sessions/introspect' });
      assert.equal((live.json as { active: boolean }).active, true, 'a session minted before the crash still works');
      const third = await mint(server, 5);
      await renew(server, [third[0]!.token, third[1]!.token]);
      // A flush can fall between the mints and the renewals; wait for both, not the mints alone.
      let stored = [0, 0];
      for (let waited = 0; waited < 10_000 && (stored[0]! < 25 || stored[1]! < 6); waited += 100) {
        await sleep(100);
        stored = await counts(teamId);
      }
      assert.deepEqual(stored, [25, 6], 'the periodic flush wrote the 5 new mints and 2 renewals while the server kept serving');
      await server.stop('SIGKILL');
      assert.deepEqual(await counts(teamId), [25, 6], 'a crash after a flush interval has passed loses nothing that was flushed');
    });
  });
}

activityCrashSuite(
  'SQLite',
  async (sandbox) => {
    const dataDir = sandbox.dir('ugs-activity-crash');
    return {
      dataDir,
      env: { UGS_SECRET: SECRET, DATABASE_URL: '' },
      async read(teamId, sessionId) {
        const db = new SqliteDatabase(join(dataDir, 'user-groups.sqlite'), { readonly: true, fileMustExist: true });
        try {
          const { minted, renewed } = db
            .prepare(
              'SELECT coalesce(sum(minted), 0) AS minted, coalesce(sum(renewed), 0) AS renewed FROM session_activity WHERE team_id = ?',
            )
            .get(teamId) as { minted: number; renewed: number };
          const revoked = db.prepare('SELECT 1 FROM embed_sessions WHERE session_id = ? AND revoked_at IS NOT NULL').get(sessionId);
          const inFeed = db.prepare('SELECT 1 FROM embed_revocations WHERE session_id = ?').get(sessionId);
          return { minted, renewed, revoked: revoked !== undefined, inFeed: inFeed !== undefined };
        } finally {
          db.close();
        }
      },
    };
  },
  async () => {},
);

let database: TestDatabase | undefined;
activityCrashSuite(
  'PostgreSQL',
  async (sandbox) => {
    database = await createTestDatabase();
    const url = database.url;
    return {
      dataDir: sandbox.dir('ugs-activity-crash-pg'),
      env: { UGS_SECRET: SECRET, DATABASE_URL: url },
      async read(teamId, sessionId) {
        const client = new pg.Client(url);
        await client.connect();
        try {
          const minted = await client.query<{ n: string; r: string }>(
            'SELECT coalesce(sum(minted), 0) AS n, coalesce(sum(renewed), 0) AS r FROM session_activity WHERE team_id = $1',
            [teamId],
          );
          const revoked = await client.query('SELECT 1 FROM embed_sessions WHERE session_id = $1 AND revoked_at IS NOT NULL', [sessionId]);
          const inFeed = await client.query('SELECT 1 FROM embed_revocations WHERE session_id = $1', [sessionId]);
          return {
            minted: Number(minted.rows[0]!.n),
            renewed: Number(minted.rows[0]!.r),
            revoked: revoked.rowCount === 1,
            inFeed: inFeed.rowCount === 1,
          };
        } finally {
          await client.end();
        }
      },
    };
  },
  async () => {
    await database?.drop();
  },
);
