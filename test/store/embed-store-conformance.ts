import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type EmbedSessionRecord } from '../../src/embed-sessions/embed-session.js';
import { tokenVersionOf, type EmbedRevocation } from '../../src/consequences/embed-revocation.js';
import type { Environment } from '../../src/kernel/environment.js';
import type { SigningKeyRecord } from '../../src/signing-keys/signing-key.js';
import type { NewUserGroup, Store } from '../../src/store/store.js';
import type { StoreFixture } from './store-conformance.js';
import { newGroup } from '../helpers/new-group.js';
import { deleteGroup, insertGroup, replaceToken, revokeSession, revokeViewer } from '../helpers/group-writes.js';

/** A session's or group revocation's lifetime beyond what it covers: the longest session (24 h) and 60 s of clock tolerance. */
const GROUP_REVOCATION_MS = (7 * 86_400 + 60) * 1000;
const CLOCK_TOLERANCE_MS = 60_000;
/** Early enough that nothing the tests write has expired: listing and inserting at it forgets nothing. */
const EARLY = '2026-01-01T00:00:00.000Z';

const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

function signingKey(generation: number, overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
  const kid = `kid-${randomBytes(6).toString('hex')}`;
  return {
    kid,
    environment: 'Customer',
    generation,
    algorithm: 'EdDSA',
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: randomBytes(32).toString('base64url'), kid, alg: 'EdDSA', use: 'sig' },
    privateKeyCiphertext: randomBytes(90),
    createdAt: '2026-03-01T00:00:00.000Z',
    activatesAt: '2026-03-01T00:05:00.000Z',
    ...overrides,
  };
}

function session(environment: Environment, providedId: string, overrides: Partial<EmbedSessionRecord> = {}): EmbedSessionRecord {
  return {
    sessionId: `es_${randomBytes(16).toString('base64url')}`,
    environment,
    teamId: 7,
    providedId,
    tokenVersion: tokenVersionOf(randomBytes(32)),
    createdAt: '2026-04-01T10:00:00.000Z',
    expiresAt: '2026-04-01T10:10:00.000Z',
    revokedAt: null,
    ...overrides,
  };
}

function group(environment: Environment, providedId: string): NewUserGroup {
  return newGroup(providedId, { environment, at: '2026-04-01T00:00:00.000Z' });
}

/**
 * The embed session half of the store conformance suite: signing keys, sessions
 * and the revocation feed, including the revocations a token rotation or a group
 * deletion appends in its own transaction (on PostgreSQL computed in SQL, which
 * must agree with tokenVersionOf).
 */
export function embedStoreConformance(fixture: StoreFixture): void {
  describe(`Store signing keys: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());

    it('starts with none, inserts and lists them in generation order, field for field, each environment its own', async () => {
      assert.deepEqual(await store.signingKeys.listSigningKeys('Customer'), []);
      assert.deepEqual(await store.signingKeys.listSigningKeys('Testing'), []);
      const third = signingKey(3, { algorithm: 'ES256', activatesAt: '2026-03-03T00:00:00.000Z' });
      const first = signingKey(1, { activatesAt: '2026-03-01T00:00:00.000Z' });
      const second = signingKey(2, {
        algorithm: 'RS256',
        publicJwk: { kty: 'RSA', n: 'AQAB'.repeat(80), e: 'AQAB', kid: 'x', alg: 'RS256', use: 'sig' },
      });
      const testingFirst = signingKey(1, { environment: 'Testing' });
      const testingSecond = signingKey(2, { environment: 'Testing', algorithm: 'ES256' });
      for (const key of [third, testingSecond, first, testingFirst, second])
        assert.equal(await store.signingKeys.insertSigningKey(key), true, `${key.environment} ${key.generation}`);
      assert.deepEqual(await store.signingKeys.listSigningKeys('Customer'), [first, second, third]);
      assert.deepEqual(
        await store.signingKeys.listSigningKeys('Testing'),
        [testingFirst, testingSecond],
        'one generation in both environments is two keys',
      );
    });

    it('refuses a second key of one generation in one environment (false, nothing written), as two processes rotating at once would', async () => {
      const before = await store.signingKeys.listSigningKeys('Customer');
      const testing = await store.signingKeys.listSigningKeys('Testing');
      const taken = Math.max(...before.map((k) => k.generation));
      assert.equal(await store.signingKeys.insertSigningKey(signingKey(taken)), false);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.signingKeys.insertSigningKey(signingKey(taken + 1))));
      assert.equal(results.filter(Boolean).length, 1, 'exactly one of many concurrent inserts of one generation wins');
      assert.equal((await store.signingKeys.listSigningKeys('Customer')).length, before.length + 1);
      assert.deepEqual(await store.signingKeys.listSigningKeys('Testing'), testing, 'the other environment is untouched');
    });

    it("swaps a private key ciphertext only while the expected one is stored, in the key's environment", async () => {
      const [key] = await store.signingKeys.listSigningKeys('Customer');
      const next = randomBytes(90);
      assert.equal(
        await store.signingKeys.replaceSigningKeyCiphertext('Testing', key!.kid, key!.privateKeyCiphertext, next),
        false,
        'the other environment has no such key',
      );
      assert.equal(await store.signingKeys.replaceSigningKeyCiphertext('Customer', key!.kid, key!.privateKeyCiphertext, next), true);
      assert.equal(
        await store.signingKeys.replaceSigningKeyCiphertext('Customer', key!.kid, key!.privateKeyCiphertext, randomBytes(90)),
        false,
        'a stale expected ciphertext',
      );
      assert.equal(await store.signingKeys.replaceSigningKeyCiphertext('Customer', 'kid-missing', next, randomBytes(90)), false);
      const stored = (await store.signingKeys.listSigningKeys('Customer')).find((k) => k.kid === key!.kid);
      assert.deepEqual(stored, { ...key, privateKeyCiphertext: next }, 'nothing else changed');
    });

    it('deletes the given keys of the environment only; an empty list deletes nothing', async () => {
      const all = await store.signingKeys.listSigningKeys('Customer');
      const testing = await store.signingKeys.listSigningKeys('Testing');
      await store.signingKeys.deleteSigningKeys('Customer', []);
      assert.equal((await store.signingKeys.listSigningKeys('Customer')).length, all.length);
      await store.signingKeys.deleteSigningKeys('Customer', [all[0]!.kid, all[2]!.kid, testing[0]!.kid, 'kid-missing']);
      assert.deepEqual(
        await store.signingKeys.listSigningKeys('Customer'),
        all.filter((_, i) => i !== 0 && i !== 2),
      );
      assert.deepEqual(await store.signingKeys.listSigningKeys('Testing'), testing, 'a kid of the other environment is not deleted');
    });
  });

  describe(`Store embed sessions and revocation feed: ${fixture.name}`, () => {
    let store: Store;
    before(async () => {
      store = await fixture.open();
    });
    after(() => store.close());
    const audit = (keyId: string, clientAddress?: string) => ({ keyId, fields: [] as string[], clientAddress });
    /** The feed of `environment` after `after`, as of EARLY (nothing filtered for expiry). */
    const feed = (environment: Environment, after = 0, limit = 1000) =>
      store.embedSessions.listEmbedRevocations(environment, after, limit, EARLY);
    const lastSequence = async () => Math.max(0, ...[...(await feed('Customer')), ...(await feed('Testing'))].map((r) => r.sequence));
    const withoutSequence = ({ sequence, ...rest }: EmbedRevocation) => (assert.ok(Number.isSafeInteger(sequence) && sequence > 0), rest);

    it('stores a session ended early once: field for field, one feed entry, one audit record; again writes nothing', async () => {
      const s = session('Testing', 'sess-revoke', { teamId: 41 });
      const since = await lastSequence();
      const audits = (await store.audit.listAuditRecords({ limit: 10_000 })).length;
      const at = '2026-04-01T10:01:00.000Z';
      assert.equal(await store.embedSessions.findEmbedSession('Testing', s.sessionId), null, 'nothing is stored before it ends');

      assert.equal(await revokeSession(store, s, at, audit('key_rev', '203.0.113.9')), true);
      assert.equal(await revokeSession(store, s, '2026-04-01T10:02:00.000Z', audit('key_again')), false, 'ended already: nothing written');
      assert.deepEqual(
        await store.embedSessions.findEmbedSession('Testing', s.sessionId),
        { ...s, revokedAt: at },
        'the first time is kept',
      );
      assert.equal(await store.embedSessions.findEmbedSession('Customer', s.sessionId), null, 'in its environment only');

      assert.deepEqual((await feed('Testing', since)).map(withoutSequence), [
        {
          environment: 'Testing',
          sessionId: s.sessionId,
          providedId: 'sess-revoke',
          tokenVersion: null,
          viewerId: null,
          reason: 'session_revoked',
          revokedAt: at,
          expiresAt: plus(s.expiresAt, CLOCK_TOLERANCE_MS),
        },
      ]);
      assert.deepEqual(await feed('Customer', since), []);
      const records = (await store.audit.listAuditRecords({ limit: 10_000 })).slice(audits);
      assert.deepEqual(
        records.map(({ id: _id, ...rest }) => rest),
        [
          {
            at,
            action: 'embed_session.revoked',
            environment: 'Testing',
            teamId: 41,
            providedId: 'sess-revoke',
            keyId: 'key_rev',
            fields: [],
            clientAddress: '203.0.113.9',
          },
        ],
      );
    });

    it('ends a session exactly once under concurrent revocations, from this store and a second one on the same database', async () => {
      const s = session('Customer', 'sess-race');
      const since = await lastSequence();
      const other = await fixture.reopen();
      try {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => revokeSession(i % 2 ? other : store, s, `2026-04-01T10:0${i}:00.000Z`, audit(`key_${i}`))),
        );
        assert.equal(results.filter(Boolean).length, 1, 'one caller ended it');
      } finally {
        await other.close();
      }
      assert.equal((await feed('Customer', since)).length, 1);
      assert.equal((await store.audit.listAuditRecords({ group: { providedId: 'sess-race' }, limit: 100 })).length, 1);
    });

    it('adds counted activity per group and hour, across batches, each batch id once, each environment its own', async () => {
      const hour = (h: number) => `2026-04-02T${String(h).padStart(2, '0')}:00:00.000Z`;
      const count = (environment: Environment, teamId: number, h: number, minted: number) => ({
        environment,
        teamId,
        hourStart: hour(h),
        minted,
        renewed: 0,
        lastMintedAt: null,
      });
      const at = '2026-04-02T12:00:00.000Z';
      await store.embedSessions.addSessionActivity(
        { batchId: 'b-1', counts: [count('Customer', 501, 9, 3), count('Customer', 501, 10, 1)], viewers: [], viewerHours: [] },
        at,
      );
      await store.embedSessions.addSessionActivity(
        { batchId: 'b-2', counts: [count('Customer', 501, 10, 4), count('Testing', 501, 10, 7)], viewers: [], viewerHours: [] },
        at,
      );
      await store.embedSessions.addSessionActivity(
        { batchId: 'b-2', counts: [count('Customer', 501, 10, 4), count('Testing', 501, 10, 7)], viewers: [], viewerHours: [] },
        at,
      );
      await store.embedSessions.addSessionActivity({ batchId: 'b-3', counts: [], viewers: [], viewerHours: [] }, at);
      assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', 501, hour(0), hour(23)), [
        count('Customer', 501, 9, 3),
        count('Customer', 501, 10, 5),
      ]);
      assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', 501, hour(10), hour(11)), [count('Customer', 501, 10, 5)]);
      assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', 501, hour(0), hour(9)), [], 'the end is exclusive');
      assert.deepEqual(await store.embedSessions.listSessionActivity('Testing', 501, hour(0), hour(23)), [count('Testing', 501, 10, 7)]);
      assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', 502, hour(0), hour(23)), []);
    });

    it('sums the batches of two processes counting one group at once, none lost and none twice', async () => {
      const other = await fixture.reopen();
      const hourStart = '2026-04-03T08:00:00.000Z';
      try {
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            (i % 2 ? other : store).embedSessions.addSessionActivity(
              {
                batchId: `race-${i % 20}`,
                counts: [{ environment: 'Customer', teamId: 777, hourStart, minted: i % 20, renewed: 0, lastMintedAt: null }],
                viewers: [],
                viewerHours: [],
              },
              '2026-04-03T08:30:00.000Z',
            ),
          ),
        );
      } finally {
        await other.close();
      }
      const sum = Array.from({ length: 20 }, (_, i) => i).reduce((a, b) => a + b, 0);
      assert.deepEqual(await store.embedSessions.listSessionActivity('Customer', 777, hourStart, '2026-04-03T09:00:00.000Z'), [
        { environment: 'Customer', teamId: 777, hourStart, minted: sum, renewed: 0, lastMintedAt: null },
      ]);
    });

    it('appends exactly one revocation per token rotation, naming the old token by tokenVersionOf; a lost race appends none', async () => {
      const { group: g } = await insertGroup(store, group('Customer', 'tv-rotate'));
      const since = await lastSequence();
      const at = '2026-05-01T00:00:00.000Z';
      const rotate = (expectedTokenHash: Buffer) =>
        replaceToken(store, {
          teamId: g.teamId,
          environment: g.environment,
          providedId: g.providedId,
          expectedTokenHash,
          tokenHash: randomBytes(32),
          tokenCiphertext: randomBytes(60),
          updatedAt: at,
        });
      const rotated = await rotate(g.tokenHash);
      assert.ok(rotated);
      assert.equal(await rotate(g.tokenHash), null, 'the old token lost');
      assert.equal(await rotate(randomBytes(32)), null, 'a token never held');
      assert.deepEqual((await feed('Customer', since)).map(withoutSequence), [
        {
          environment: 'Customer',
          sessionId: null,
          providedId: 'tv-rotate',
          tokenVersion: tokenVersionOf(g.tokenHash),
          viewerId: null,
          reason: 'token_rotated',
          revokedAt: at,
          expiresAt: plus(at, GROUP_REVOCATION_MS),
        },
      ]);
    });

    it('appends one revocation per winning rotation among many made together, each with its own old token version', async () => {
      const groups = await Promise.all(
        ['tv-batch-a', 'tv-batch-b', 'tv-batch-c'].map(async (id) => (await insertGroup(store, group('Testing', id))).group),
      );
      const since = await lastSequence();
      const at = '2026-05-02T00:00:00.000Z';
      const rotate = (g: (typeof groups)[number], expectedTokenHash = g.tokenHash) =>
        replaceToken(store, {
          teamId: g.teamId,
          environment: g.environment,
          providedId: g.providedId,
          expectedTokenHash,
          tokenHash: randomBytes(32),
          tokenCiphertext: randomBytes(60),
          updatedAt: at,
        });
      const results = await Promise.all([
        rotate(groups[0]!),
        rotate(groups[0]!),
        rotate(groups[0]!),
        rotate(groups[1]!),
        rotate(groups[2]!, randomBytes(32)),
      ]);
      assert.equal(results.filter((r) => r !== null).length, 2);
      const entries = await feed('Testing', since);
      assert.deepEqual(entries.map((r) => [r.providedId, r.tokenVersion, r.reason]).sort(), [
        ['tv-batch-a', tokenVersionOf(groups[0]!.tokenHash), 'token_rotated'],
        ['tv-batch-b', tokenVersionOf(groups[1]!.tokenHash), 'token_rotated'],
      ]);
    });

    it("appends exactly one revocation per group deletion, with the deleted token's version; an unknown group appends none", async () => {
      const { group: g } = await insertGroup(store, group('Testing', 'tv-delete'));
      await insertGroup(store, group('Customer', 'tv-delete'));
      const since = await lastSequence();
      const at = '2026-05-03T00:00:00.000Z';
      assert.ok(await deleteGroup(store, 'Testing', 'tv-delete', at, audit('key_del')));
      assert.equal(await deleteGroup(store, 'Testing', 'tv-delete', at), null);
      assert.equal(await deleteGroup(store, 'Testing', 'tv-never', at), null);
      assert.deepEqual((await feed('Testing', since)).map(withoutSequence), [
        {
          environment: 'Testing',
          sessionId: null,
          providedId: 'tv-delete',
          tokenVersion: tokenVersionOf(g.tokenHash),
          viewerId: null,
          reason: 'user_group_deleted',
          revokedAt: at,
          expiresAt: plus(at, GROUP_REVOCATION_MS),
        },
      ]);
      assert.deepEqual(await feed('Customer', since), [], "the other environment's group of the same id is untouched");
    });

    it('lists the feed oldest first, per environment, after a sequence, a page at a time, without entries past their expiry', async () => {
      const since = await lastSequence();
      const made: EmbedSessionRecord[] = [];
      for (let i = 0; i < 5; i++) {
        const s = session(i % 2 ? 'Testing' : 'Customer', `feed-${i}`, { expiresAt: `2026-06-0${i + 1}T00:00:00.000Z` });
        await revokeSession(store, s, '2026-04-01T11:00:00.000Z', audit('key_feed'));
        made.push(s);
      }
      const customer = await feed('Customer', since);
      assert.deepEqual(
        customer.map((r) => r.sessionId),
        [made[0]!.sessionId, made[2]!.sessionId, made[4]!.sessionId],
      );
      assert.deepEqual(
        customer.map((r) => r.sequence),
        [...customer.map((r) => r.sequence)].sort((a, b) => a - b),
      );
      assert.deepEqual(
        (await feed('Testing', since)).map((r) => r.sessionId),
        [made[1]!.sessionId, made[3]!.sessionId],
      );

      const first = await feed('Customer', since, 2);
      assert.deepEqual(first, customer.slice(0, 2));
      assert.deepEqual(await feed('Customer', first.at(-1)!.sequence, 2), customer.slice(2));
      assert.deepEqual(await feed('Customer', customer.at(-1)!.sequence, 2), [], 'nothing after the last');

      // made[0]'s entry expires at 2026-06-01T00:01:00Z, made[2]'s at 2026-06-03T00:01:00Z.
      const later = await store.embedSessions.listEmbedRevocations('Customer', since, 1000, '2026-06-01T00:01:00.000Z');
      assert.deepEqual(
        later.map((r) => r.sessionId),
        [made[2]!.sessionId, made[4]!.sessionId],
        'an entry is gone once its expiry is reached',
      );
    });

    it("sums a viewer's activity per group across batches and processes: first seen the earliest, last seen the latest, sessions added", async () => {
      const viewer = (teamId: number, viewerId: string, first: string, last: string, sessions: number) => ({
        environment: 'Customer' as const,
        teamId,
        viewerId,
        firstSeenAt: first,
        lastSeenAt: last,
        sessions,
      });
      const other = await fixture.reopen();
      try {
        await Promise.all([
          store.embedSessions.addSessionActivity(
            {
              batchId: 'v-1',
              counts: [],
              viewers: [viewer(900, 'ana', '2026-04-05T10:00:00.000Z', '2026-04-05T10:05:00.000Z', 3)],
              viewerHours: [],
            },
            EARLY,
          ),
          other.embedSessions.addSessionActivity(
            {
              batchId: 'v-2',
              counts: [],
              viewerHours: [],
              viewers: [
                viewer(900, 'ana', '2026-04-05T09:00:00.000Z', '2026-04-05T09:30:00.000Z', 2),
                viewer(900, 'bob', '2026-04-05T11:00:00.000Z', '2026-04-05T11:00:00.000Z', 1),
                viewer(901, 'ana', '2026-04-05T12:00:00.000Z', '2026-04-05T12:00:00.000Z', 5),
              ],
            },
            EARLY,
          ),
        ]);
        await other.embedSessions.addSessionActivity(
          {
            batchId: 'v-2',
            counts: [],
            viewers: [viewer(900, 'bob', '2026-04-05T11:00:00.000Z', '2026-04-05T11:00:00.000Z', 1)],
            viewerHours: [],
          },
          EARLY,
        );
      } finally {
        await other.close();
      }
      assert.deepEqual(await store.embedSessions.listViewers('Customer', 900, null, 10), [
        viewer(900, 'bob', '2026-04-05T11:00:00.000Z', '2026-04-05T11:00:00.000Z', 1),
        viewer(900, 'ana', '2026-04-05T09:00:00.000Z', '2026-04-05T10:05:00.000Z', 5),
      ]);
      assert.deepEqual(await store.embedSessions.listViewers('Testing', 900, null, 10), [], 'each environment its own');
      const first = await store.embedSessions.listViewers('Customer', 900, null, 1);
      assert.deepEqual(
        first.map((v) => v.viewerId),
        ['bob'],
      );
      assert.deepEqual(
        (await store.embedSessions.listViewers('Customer', 900, first[0]!, 10)).map((v) => v.viewerId),
        ['ana'],
        'the next page starts after the position given',
      );
    });

    it("appends a viewer's revocation once per call, audited with the viewer, as a feed entry with no group; the latest is found until it expires", async () => {
      const since = await lastSequence();
      const audits = (await store.audit.listAuditRecords({ limit: 10_000 })).length;
      assert.equal(await store.embedSessions.latestViewerRevocation('Testing', 'carol', EARLY), null);
      await revokeViewer(store, 'Testing', 'carol', '2026-04-06T10:00:00.250Z', audit('key_v', '198.51.100.1'));
      await revokeViewer(store, 'Testing', 'carol', '2026-04-06T10:30:00.000Z', audit('key_v'));
      assert.deepEqual((await feed('Testing', since)).map(withoutSequence), [
        {
          environment: 'Testing',
          sessionId: null,
          providedId: null,
          tokenVersion: null,
          viewerId: 'carol',
          reason: 'viewer_revoked',
          revokedAt: '2026-04-06T10:00:00.250Z',
          expiresAt: plus('2026-04-06T10:00:00.250Z', GROUP_REVOCATION_MS),
        },
        {
          environment: 'Testing',
          sessionId: null,
          providedId: null,
          tokenVersion: null,
          viewerId: 'carol',
          reason: 'viewer_revoked',
          revokedAt: '2026-04-06T10:30:00.000Z',
          expiresAt: plus('2026-04-06T10:30:00.000Z', GROUP_REVOCATION_MS),
        },
      ]);
      assert.equal(await store.embedSessions.latestViewerRevocation('Testing', 'carol', EARLY), '2026-04-06T10:30:00.000Z');
      assert.equal(await store.embedSessions.latestViewerRevocation('Customer', 'carol', EARLY), null, 'each environment its own');
      assert.equal(
        await store.embedSessions.latestViewerRevocation('Testing', 'carol', plus('2026-04-06T10:30:00.000Z', GROUP_REVOCATION_MS)),
        null,
        'gone once no session it covers can live',
      );
      const records = (await store.audit.listAuditRecords({ limit: 10_000 })).slice(audits);
      assert.deepEqual(
        records.map(({ id: _id, ...rest }) => rest),
        [
          {
            at: '2026-04-06T10:00:00.250Z',
            action: 'viewer.sessions_revoked',
            environment: 'Testing',
            teamId: null,
            providedId: null,
            keyId: 'key_v',
            fields: [],
            clientAddress: '198.51.100.1',
            viewerId: 'carol',
          },
          {
            at: '2026-04-06T10:30:00.000Z',
            action: 'viewer.sessions_revoked',
            environment: 'Testing',
            teamId: null,
            providedId: null,
            keyId: 'key_v',
            fields: [],
            clientAddress: null,
            viewerId: 'carol',
          },
        ],
      );
    });

    it('forgets expired sessions and feed entries as revocations and activity are written, at most a few per write', async () => {
      const far = '2030-01-01T00:00:00.000Z';
      const expired = Array.from({ length: 150 }, (_, i) => session('Customer', `prune-me-${i}`));
      for (const s of expired) await revokeSession(store, s, EARLY, audit('key_prune'));
      const live = session('Customer', 'prune-live', { expiresAt: '2031-01-01T00:00:00.000Z' });
      await revokeSession(store, live, EARLY, audit('key_prune'));
      const stored = async () =>
        (await Promise.all(expired.map((s) => store.embedSessions.findEmbedSession('Customer', s.sessionId)))).filter(Boolean).length;
      for (let i = 0; ; i++) {
        assert.ok(i < 100, 'pruning never finished');
        const [entries, sessions] = [[...(await feed('Customer')), ...(await feed('Testing'))].length, await stored()];
        if (i % 2) await store.embedSessions.addSessionActivity({ batchId: `prune-${i}`, counts: [], viewers: [], viewerHours: [] }, far);
        else await revokeSession(store, session('Customer', `prune-${i}`, { expiresAt: '2031-01-01T00:00:00.000Z' }), far, audit('k'));
        const [entriesAfter, sessionsAfter] = [[...(await feed('Customer')), ...(await feed('Testing'))].length, await stored()];
        assert.ok(
          entries - entriesAfter <= 100 && sessions - sessionsAfter <= 100,
          `one write forgot ${entries - entriesAfter} entries, ${sessions - sessionsAfter} sessions`,
        );
        const liveEntries = [...(await feed('Customer')), ...(await feed('Testing'))].filter((r) => r.expiresAt > far).length;
        if (entriesAfter === liveEntries && sessionsAfter === 0) break;
      }
      assert.deepEqual(
        await store.embedSessions.findEmbedSession('Customer', live.sessionId),
        { ...live, revokedAt: EARLY },
        'a live session is kept',
      );
    });
  });
}
