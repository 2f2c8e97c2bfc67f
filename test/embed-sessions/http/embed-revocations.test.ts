import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

const FEED = '/api/embed_sessions/revocations';
/** A group's revocation is kept this long after it was made: the longest session (24 h) and 60 s of clock tolerance. */
const GROUP_REVOCATION_MS = (7 * 86_400 + 60) * 1000;

const mint = (api: ApiClient, body: unknown) => api.call('POST', body, { path: '/api/embed_sessions' });
const feed = (api: ApiClient, query = '') => api.call('GET', undefined, { path: `${FEED}${query}` });

interface Entry {
  session_id: string | null;
  user_group_id: string;
  token_version: string | null;
  reason: string;
  revoked_at: string;
  expires_at: string;
}

describe('GET /api/embed_sessions/revocations', () => {
  const server = buildForSuite();
  let api: ApiClient & { keyId: string };
  before(async () => {
    api = server.api;
  });

  /** Every entry after `after` (all when undefined), following next_cursor page by page. */
  async function drain(by: ApiClient, after?: string, limit = 1000): Promise<{ entries: Entry[]; cursor: string; pages: number }> {
    const entries: Entry[] = [];
    let cursor = after;
    for (let pages = 1; ; pages++) {
      const query = [cursor === undefined ? '' : `after=${encodeURIComponent(cursor)}`, `limit=${limit}`].filter(Boolean).join('&');
      const res = await feed(by, `?${query}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['success', 'environment', 'revocations', 'next_cursor']);
      assert.equal(typeof res.json.next_cursor, 'string');
      entries.push(...res.json.revocations);
      if (res.json.revocations.length < limit) return { entries, cursor: res.json.next_cursor, pages };
      cursor = res.json.next_cursor;
    }
  }

  it('starts empty, with a cursor that stays put while nothing happens', async () => {
    const res = await feed(api);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.revocations, []);
    assert.equal(typeof res.json.next_cursor, 'string');
    const again = await feed(api, `?after=${encodeURIComponent(res.json.next_cursor)}`);
    assert.deepEqual(again.json, { success: 1, environment: 'Customer', revocations: [], next_cursor: res.json.next_cursor });
  });

  it('lists an ended session, a rotated group and a deleted group, each as the wire contract says, oldest first', async () => {
    const { cursor: start } = await drain(api);
    const created = (await api.getOrCreate({ user_group_id: 'feed-g', name: 'Feed' })).json.user_group;
    const ended = (await mint(api, { user_group_id: 'feed-g', expires_in: 300 })).json.embed_session;
    const beforeRotation = decodeJwt((await mint(api, { user_group_id: 'feed-g' })).json.embed_session.token);
    const endedAt = Date.now();
    assert.equal((await api.call('DELETE', undefined, { path: `/api/embed_sessions/${ended.session_id}` })).status, 200);
    const rotated = (await api.rotate(created.token)).json.user_group;
    const beforeDeletion = decodeJwt((await mint(api, { user_group_id: 'feed-g' })).json.embed_session.token);
    assert.equal((await api.call('DELETE', { user_group_id: 'feed-g' })).status, 200);
    assert.ok(rotated.token);

    const { entries } = await drain(api, start);
    assert.deepEqual(
      entries.map((e) => Object.keys(e).sort()),
      Array(3).fill(['expires_at', 'reason', 'revoked_at', 'session_id', 'token_version', 'user_group_id', 'viewer_id']),
    );
    const [session, rotation, deletion] = entries as [Entry, Entry, Entry];
    assert.deepEqual(
      [session.session_id, session.user_group_id, session.token_version, session.reason],
      [ended.session_id, 'feed-g', null, 'session_revoked'],
    );
    assert.equal(
      session.expires_at,
      new Date((decodeJwt(ended.token).iat! + 12 * 3600) * 1000 + 60_000).toISOString(),
      "kept until the session's end (iat + max_lifetime, 12 hours unless given, past which no renewal reaches), plus clock tolerance",
    );
    assert.ok(Math.abs(Date.parse(session.revoked_at) - endedAt) < 60_000, session.revoked_at);

    assert.deepEqual(
      [rotation.session_id, rotation.user_group_id, rotation.token_version, rotation.reason],
      [null, 'feed-g', beforeRotation.tv, 'token_rotated'],
    );
    assert.equal(rotation.expires_at, new Date(Date.parse(rotation.revoked_at) + GROUP_REVOCATION_MS).toISOString());
    assert.deepEqual(
      [deletion.session_id, deletion.user_group_id, deletion.token_version, deletion.reason],
      [null, 'feed-g', beforeDeletion.tv, 'user_group_deleted'],
    );
    assert.notEqual(beforeDeletion.tv, beforeRotation.tv);
    assert.equal(deletion.expires_at, new Date(Date.parse(deletion.revoked_at) + GROUP_REVOCATION_MS).toISOString());
    assert.ok(session.revoked_at <= rotation.revoked_at && rotation.revoked_at <= deletion.revoked_at);
  });

  it('pages with limit and next_cursor, without gaps or repeats', async () => {
    const { cursor: start } = await drain(api);
    await api.getOrCreate({ user_group_id: 'paged', name: 'Paged' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { session_id } = (await mint(api, { user_group_id: 'paged' })).json.embed_session;
      assert.equal((await api.call('DELETE', undefined, { path: `/api/embed_sessions/${session_id}` })).status, 200);
      ids.push(session_id);
    }
    const first = await feed(api, `?after=${encodeURIComponent(start)}&limit=2`);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.json.revocations.map((e: Entry) => e.session_id),
      ids.slice(0, 2),
    );
    const { entries, cursor, pages } = await drain(api, start, 2);
    assert.deepEqual(
      entries.map((e) => e.session_id),
      ids,
    );
    assert.equal(pages, 3);
    assert.deepEqual(
      (await feed(api, `?after=${encodeURIComponent(cursor)}&limit=2`)).json.revocations,
      [],
      'the last cursor sees nothing new',
    );
  });

  it("shows a key only its own environment's revocations, to any access level, and needs a key", async () => {
    const testing = await server.client({ environment: 'Testing' });
    const { cursor: testingStart } = await drain(testing);
    const { cursor: customerStart } = await drain(api);
    await testing.getOrCreate({ user_group_id: 'scoped', name: 'T' });
    const { session_id } = (await mint(testing, { user_group_id: 'scoped' })).json.embed_session;
    assert.equal((await testing.call('DELETE', undefined, { path: `/api/embed_sessions/${session_id}` })).status, 200);
    assert.deepEqual((await drain(api, customerStart)).entries, [], 'Customer sees nothing of Testing');
    for (const access of ['read-only', 'embed', 'read-write'] as const) {
      const reader = await server.client({ environment: 'Testing', access });
      assert.deepEqual(
        (await drain(reader, testingStart)).entries.map((e) => e.session_id),
        [session_id],
        access,
      );
    }
    assertError(await api.call('GET', undefined, { path: FEED, headers: { authorization: '' } }), 401, 'unauthenticated');
  });

  it('answers 400 for a cursor it did not hand out and a limit out of 1..1000', async () => {
    const forged = Buffer.from('r1:-1').toString('base64url');
    for (const query of [
      '?after=garbage',
      `?after=${forged}`,
      `?after=${Buffer.from('x1:5').toString('base64url')}`,
      '?limit=0',
      '?limit=1001',
      '?limit=ten',
      '?limit=2.5',
    ]) {
      assertError(await feed(api, query), 400, 'invalid_request');
    }
    assert.equal((await feed(api, '?limit=1000')).status, 200);
    assert.equal((await feed(api, '?limit=1')).status, 200);
  });

  it('audits every revocation: ended sessions with the key that ended them, rotations and deletions as before', async () => {
    const ender = await server.client({ access: 'embed' });
    const group = (await api.getOrCreate({ user_group_id: 'audited', name: 'Audited' })).json.user_group;
    const { session_id } = (await mint(api, { user_group_id: 'audited' })).json.embed_session;
    await ender.call('DELETE', undefined, { path: `/api/embed_sessions/${session_id}` });
    await ender.call('DELETE', undefined, { path: `/api/embed_sessions/${session_id}` });
    await api.rotate(group.token);
    await api.call('DELETE', { user_group_id: 'audited' });
    const records = await server.services.audit.listAuditRecords({ group: { providedId: 'audited' }, limit: 100 });
    assert.deepEqual(
      records.map((r) => [r.action, r.keyId, r.teamId, r.environment]),
      [
        ['user_group.created', api.keyId, group.team_id, 'Customer'],
        ['embed_session.revoked', ender.keyId, group.team_id, 'Customer'],
        ['user_group.token_rotated', api.keyId, group.team_id, 'Customer'],
        ['user_group.deleted', api.keyId, group.team_id, 'Customer'],
      ],
      'one record per revocation; ending an ended session again records nothing',
    );
  });
});
