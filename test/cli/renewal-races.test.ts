import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ServerProcess } from '../helpers/cli.js';
import { ApiClient, type RawResponse } from '../helpers/http-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { Sandbox } from './cli-support.js';

/**
 * Renewals raced against the writes that end or change a session, across two
 * `ugs serve` processes on one store (one SQLite file, one PostgreSQL database):
 * a renewal is decided and signed from one view of the group, so a rotation,
 * deletion or viewer revocation answered before or while it runs ends every
 * token it hands out, and a move answered before it is in the token it hands out.
 */

/** Rounds per write; a round is a few renewal chains across both processes, with the write issued mid-stream. */
const ROUNDS = 100;
/** Rounds run side by side, so the processes always have several requests in flight. */
const ROUNDS_AT_ONCE = 4;
/** Renewal chains per round, each renewing the token the last renewal handed it, alternating processes. */
const CHAINS = 3;
/** A chain stops here if nothing ends it: only a survivor (the bug) renews this often. */
const CHAIN_MAX = 30;

interface Renewal {
  status: number;
  text: string;
  token?: string;
  /** The write had been answered when this renewal was sent. */
  sentAfterWrite: boolean;
}

interface Round {
  renewals: Renewal[];
  write: RawResponse;
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`renewals racing rotation, deletion, viewer revocation and moves, two processes (${kind})`, () => {
    const sandbox = new Sandbox();
    let database: TestDatabase | undefined;
    let processes: ServerProcess[];
    let clients: ApiClient[];

    before(async () => {
      if (kind === 'postgres') database = await createTestDatabase();
      const dataDir = sandbox.dir('ugs-renewal-races');
      const env = {
        UGS_SECRET: randomBytes(32).toString('hex'),
        ...(database ? { DATABASE_URL: database.url } : {}),
      };
      const { key } = await sandbox.createKey(dataDir, [], env);
      processes = [await sandbox.serve(dataDir, env), await sandbox.serve(dataDir, env)];
      clients = processes.map((p) => new ApiClient(p.url, key));
    });
    after(async () => {
      await sandbox.cleanup();
      await database?.drop();
    });

    const renew = (i: number, token: string) => clients[i % 2]!.call('POST', { token }, { path: '/api/embed_sessions/renew' });
    const introspect = async (i: number, token: string) =>
      (await clients[i % 2]!.call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json;

    /** Mints a session on one process, renews it in chains on both, and issues `write` on the other after the first renewal. */
    async function race(
      round: number,
      mintBody: Record<string, unknown>,
      write: () => Promise<RawResponse>,
      onMinted: (sessionId: string) => void = () => {},
    ): Promise<Round> {
      const minted = await clients[round % 2]!.call('POST', mintBody, { path: '/api/embed_sessions' });
      assert.equal(minted.status, 201, minted.text);
      onMinted(minted.json.embed_session.session_id as string);
      const renewals: Renewal[] = [];
      let answered = false;
      let startWrite!: () => void;
      const firstRenewal = new Promise<void>((resolve) => (startWrite = resolve));
      const written = firstRenewal.then(write).then((res) => ((answered = true), res));
      const chain = async (c: number) => {
        let token = minted.json.embed_session.token as string;
        for (let n = 0; n < CHAIN_MAX; n++) {
          const sentAfterWrite = answered;
          const res = await renew(round + c + n, token);
          const renewal: Renewal = { status: res.status, text: res.text, sentAfterWrite };
          renewals.push(renewal);
          startWrite();
          if (res.status !== 201) return;
          token = renewal.token = res.json.embed_session.token as string;
          // Chains that outlive the write by a whole chain are survivors already; the assertions name them.
          if (answered && n > 2 && renewals.filter((r) => r.sentAfterWrite).length > CHAINS * 3) return;
        }
      };
      await Promise.all(Array.from({ length: CHAINS }, (_, c) => chain(c)));
      return { renewals, write: await written };
    }

    /** Every round of `scenario`, ROUNDS_AT_ONCE at a time. */
    async function rounds(scenario: (round: number) => Promise<void>): Promise<void> {
      for (let start = 0; start < ROUNDS; start += ROUNDS_AT_ONCE)
        await Promise.all(Array.from({ length: Math.min(ROUNDS_AT_ONCE, ROUNDS - start) }, (_, i) => scenario(start + i)));
    }

    /** What every ending write must leave: no 500, a refusal for what was sent after it, and no token alive. */
    async function assertNoSurvivor(round: number, result: Round, reason: RegExp): Promise<void> {
      assert.equal(result.write.status, 200, result.write.text);
      for (const renewal of result.renewals) {
        assert.ok(renewal.status === 201 || renewal.status === 409, `round ${round}: renewal answered ${renewal.status}: ${renewal.text}`);
        if (renewal.status === 409) assert.match(JSON.parse(renewal.text).error.message, reason);
        if (renewal.sentAfterWrite) assert.equal(renewal.status, 409, `round ${round}: a renewal sent after the write: ${renewal.text}`);
      }
      const handedOut = result.renewals.flatMap((r) => (r.token === undefined ? [] : [r.token]));
      const alive = [];
      for (const [i, token] of handedOut.entries()) if ((await introspect(i, token)).active !== false) alive.push(token);
      assert.equal(alive.length, 0, `round ${round}: ${alive.length} of ${handedOut.length} renewed tokens survived the write`);
    }

    it(`a rotation ends every token a racing renewal hands out (${ROUNDS} rounds)`, async () => {
      await rounds(async (round) => {
        const id = `rot-${round}`;
        const created = await clients[0]!.getOrCreate({ user_group_id: id, name: id });
        const token = created.json.user_group.token as string;
        const result = await race(round, { user_group_id: id, expires_in: 600 }, () => clients[(round + 1) % 2]!.rotate(token));
        await assertNoSurvivor(round, result, /token was rotated/);
      });
    });

    it(`a deletion ends every token a racing renewal hands out, and the renewals answer 409, not 500 (${ROUNDS} rounds)`, async () => {
      await rounds(async (round) => {
        const id = `del-${round}`;
        await clients[0]!.getOrCreate({ user_group_id: id, name: id });
        const result = await race(round, { user_group_id: id }, () => clients[(round + 1) % 2]!.call('DELETE', { user_group_id: id }));
        await assertNoSurvivor(round, result, /user group was deleted/);
      });
    });

    it(`a deletion and re-creation of the id ends every token a racing renewal hands out (${ROUNDS} rounds)`, async () => {
      await rounds(async (round) => {
        const id = `re-${round}`;
        await clients[0]!.getOrCreate({ user_group_id: id, name: id });
        const result = await race(round, { user_group_id: id }, async () => {
          const other = clients[(round + 1) % 2]!;
          const deleted = await other.call('DELETE', { user_group_id: id });
          assert.equal(deleted.status, 200, deleted.text);
          return other.getOrCreate({ user_group_id: id, name: `${id}, again` });
        });
        await assertNoSurvivor(round, result, /user group was deleted/);
      });
    });

    it(`ending the session by id ends every token a racing renewal hands out (${ROUNDS} rounds)`, async () => {
      await clients[0]!.getOrCreate({ user_group_id: 'ended', name: 'Ended' });
      await rounds(async (round) => {
        let sessionId = '';
        const result = await race(
          round,
          { user_group_id: 'ended' },
          () => clients[(round + 1) % 2]!.call('DELETE', undefined, { path: `/api/embed_sessions/${sessionId}` }),
          (minted) => (sessionId = minted),
        );
        await assertNoSurvivor(round, result, /it was ended/);
      });
    });

    it(`a viewer revocation ends every token a racing renewal hands out (${ROUNDS} rounds)`, async () => {
      await clients[0]!.getOrCreate({ user_group_id: 'viewers', name: 'Viewers' });
      await rounds(async (round) => {
        const viewer = `viewer-${round}`;
        const result = await race(round, { user_group_id: 'viewers', viewer: { id: viewer } }, () =>
          clients[(round + 1) % 2]!.call('DELETE', undefined, { path: `/api/viewers/${viewer}/sessions` }),
        );
        await assertNoSurvivor(round, result, /viewer's sessions were ended/);
      });
    });

    it(`a move is in every token a renewal sent after it hands out, and each token holds one hierarchy (${ROUNDS} rounds)`, async () => {
      for (const root of ['root-a', 'root-b']) await clients[0]!.getOrCreate({ user_group_id: root, name: root, properties: { root } });
      await rounds(async (round) => {
        const id = `mv-${round}`;
        await clients[0]!.getOrCreate({ user_group_id: id, name: id, parent_user_group_id: 'root-a' });
        const result = await race(round, { user_group_id: id }, async () => {
          const moved = await clients[(round + 1) % 2]!.update({ user_group_id: id, parent_user_group_id: 'root-b' });
          // Moves end no session: the chains stop once they have renewed past the move.
          return moved;
        });
        assert.equal(result.write.status, 200, result.write.text);
        for (const renewal of result.renewals) {
          assert.equal(renewal.status, 201, `round ${round}: ${renewal.text}`);
          const claims = decodeJwt(renewal.token!);
          const root = (claims['anc'] as string[])[0];
          assert.ok(root === 'root-a' || root === 'root-b', `round ${round}: anc ${JSON.stringify(claims['anc'])}`);
          assert.deepEqual(claims['props'], { root }, `round ${round}: the properties of the hierarchy the token names`);
          if (renewal.sentAfterWrite) assert.equal(root, 'root-b', `round ${round}: a renewal sent after the move carries the old parent`);
        }
      });
    });
  });
}
