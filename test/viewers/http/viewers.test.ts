import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

interface Minted {
  token: string;
  session_id: string;
}

describe('viewers: the people inside a group', () => {
  const server = buildForSuite();
  let api: ApiClient;
  const mint = async (body: Record<string, unknown>, client = api): Promise<Minted> => {
    const res = await client.call('POST', body, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    return res.json.embed_session as Minted;
  };
  const introspect = async (token: string) => (await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json;
  const endViewer = (id: string, client = api) =>
    client.call('DELETE', undefined, { path: `/api/viewers/${encodeURIComponent(id)}/sessions` });
  const viewersOf = (group: string, query = '', client = api) =>
    client.call('GET', undefined, { path: `/api/user_groups/${group}/viewers${query}` });

  before(async () => {
    api = server.api;
    await api.getOrCreate({ user_group_id: 'v-acme', name: 'Acme', properties: { region: 'eu', tier: 'gold', sales_rep: null } });
    await api.getOrCreate({ user_group_id: 'v-globex', name: 'Globex', properties: { region: 'us' } });
  });

  it("puts the viewer in vid and overlays the group's properties with the attributes: an attribute wins, a null hides; without a viewer, tokens are as before", async () => {
    const withViewer = await mint({
      user_group_id: 'v-acme',
      viewer: { id: 'ana@acme.test', attributes: { sales_rep: 'ana', tier: null, seats: 3 } },
    });
    const claims = decodeJwt(withViewer.token);
    assert.equal(claims['vid'], 'ana@acme.test');
    assert.deepEqual(claims['props'], { region: 'eu', sales_rep: 'ana', seats: 3 });
    const bare = decodeJwt((await mint({ user_group_id: 'v-acme' })).token);
    assert.equal('vid' in bare, false);
    assert.deepEqual(bare['props'], { region: 'eu', tier: 'gold', sales_rep: null });
    assert.deepEqual(claims['gprops'], bare['props'], "gprops: the group's own properties, which the attributes do not touch");
    assert.deepEqual((await introspect(withViewer.token)).gprops, bare['props']);
    assert.equal('gprops' in bare, false);
    const noAttributes = decodeJwt((await mint({ user_group_id: 'v-acme', viewer: { id: 'bob' } })).token);
    assert.equal(noAttributes['vid'], 'bob');
    assert.deepEqual(noAttributes['props'], bare['props']);
    assert.equal('gprops' in noAttributes, false, 'without attributes, props are the group’s own');
  });

  it('answers 400 for a viewer out of bounds, naming what is wrong', async () => {
    for (const viewer of [
      { id: '' },
      { id: 'x'.repeat(256) },
      { attributes: {} },
      { id: 'ok', attributes: ['not', 'an', 'object'] },
      { id: 'ok', attributes: { big: 'x'.repeat(70_000) } },
      { id: 'ok', extra: true },
      'ana',
      { id: 'tab\there' },
    ]) {
      const res = await api.call('POST', { user_group_id: 'v-acme', viewer }, { path: '/api/embed_sessions' });
      const message = assertError(res, 400, 'invalid_request');
      assert.match(message, /viewer/, JSON.stringify(viewer).slice(0, 80));
    }
  });

  it("ends a viewer's sessions in every group at once: earlier tokens inactive, other viewers untouched, later sessions work; in the feed, the events and the audit log", async () => {
    const embed = await server.client({ access: 'embed' });
    const inAcme = await mint({ user_group_id: 'v-acme', viewer: { id: 'leaver' } });
    const inGlobex = await mint({ user_group_id: 'v-globex', viewer: { id: 'leaver' } }, embed);
    const stayer = await mint({ user_group_id: 'v-acme', viewer: { id: 'stayer' } });
    const withoutViewer = await mint({ user_group_id: 'v-acme' });
    const feedBefore = (await api.call('GET', undefined, { path: '/api/embed_sessions/revocations?limit=1000' })).json.revocations.length;

    const res = await endViewer('leaver', embed);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.json), ['success', 'viewer_id', 'revoked_at']);
    assert.equal(res.json.viewer_id, 'leaver');
    const answeredAt = Date.now();
    assert.ok(Date.parse(res.json.revoked_at) > answeredAt - 1000, 'the cut-off reaches past the answer: a replica ahead is covered');

    assert.deepEqual(await introspect(inAcme.token), { active: false });
    assert.deepEqual(await introspect(inGlobex.token), { active: false });
    assert.equal((await introspect(stayer.token)).active, true);
    assert.equal((await introspect(withoutViewer.token)).active, true);
    const later = await mint({ user_group_id: 'v-acme', viewer: { id: 'leaver' } });
    assert.equal((await introspect(later.token)).active, true, 'a session minted after the answer works');
    assert.ok(decodeJwt(later.token).iat! > Math.floor(Date.parse(res.json.revoked_at) / 1000), 'stamped past the cut-off');

    const feed = (await api.call('GET', undefined, { path: '/api/embed_sessions/revocations?limit=1000' })).json.revocations.slice(
      feedBefore,
    );
    assert.equal(feed.length, 1);
    assert.deepEqual(
      { ...feed[0], expires_at: undefined },
      {
        session_id: null,
        user_group_id: null,
        token_version: null,
        viewer_id: 'leaver',
        reason: 'viewer_revoked',
        revoked_at: res.json.revoked_at,
        expires_at: undefined,
      },
    );
    const events = (await api.call('GET', undefined, { path: '/api/events?limit=1000' })).json.events;
    const event = events.find((e: { type: string }) => e.type === 'viewer.sessions_revoked');
    assert.deepEqual(event?.data, { api_environment_tag: 'Customer', viewer_id: 'leaver' });
    const audit = await server.services.audit.listAuditRecords({ limit: 10_000 });
    const record = audit.find((r) => r.action === 'viewer.sessions_revoked');
    assert.equal(record?.viewerId, 'leaver');
    assert.equal(record?.keyId, embed.keyId);
  });

  it('answers 200 for a viewer with no session, 403 to read-only keys, and keeps each environment apart', async () => {
    assert.equal((await endViewer('never-seen')).status, 200);
    assertError(await endViewer('ana', await server.client({ access: 'read-only' })), 403, 'forbidden');
    const testing = await server.client({ environment: 'Testing' });
    await testing.getOrCreate({ user_group_id: 'v-test', name: 'Test' });
    const testingToken = (await mint({ user_group_id: 'v-test', viewer: { id: 'shared-id' } }, testing)).token;
    const customerToken = (await mint({ user_group_id: 'v-acme', viewer: { id: 'shared-id' } })).token;
    assert.equal((await endViewer('shared-id', testing)).status, 200);
    assert.equal((await introspect(customerToken)).active, true, "Testing's revocation leaves Customer's viewer alone");
    assert.deepEqual((await testing.call('POST', { token: testingToken }, { path: '/api/embed_sessions/introspect' })).json, {
      active: false,
    });
  });

  it('refuses a viewer id not in Unicode NFC in the mint body and the revoke path, naming NFC; the NFC id ends what was minted with it', async () => {
    const composed = 'café-viewer';
    const decomposed = composed.normalize('NFD');
    assert.notEqual(decomposed, composed);
    const minted = await mint({ user_group_id: 'v-acme', viewer: { id: composed } });

    const mintRefused = await api.call('POST', { user_group_id: 'v-acme', viewer: { id: decomposed } }, { path: '/api/embed_sessions' });
    assert.match(assertError(mintRefused, 400, 'invalid_request'), /^"viewer\.id" is not in Unicode NFC/);
    const revokeRefused = await endViewer(decomposed);
    assert.match(assertError(revokeRefused, 400, 'invalid_request'), /^"viewer_id" is not in Unicode NFC/);
    assert.equal((await introspect(minted.token)).active, true, 'a refused revocation ends nothing');
    const feed = (await api.call('GET', undefined, { path: '/api/embed_sessions/revocations?limit=1000' })).json.revocations;
    assert.ok(!feed.some((entry: { viewer_id: string | null }) => entry.viewer_id === decomposed), 'no feed entry for the refused id');

    const ended = await endViewer(composed);
    assert.equal(ended.status, 200, ended.text);
    assert.equal(ended.json.viewer_id, composed);
    assert.deepEqual(await introspect(minted.token), { active: false });
  });

  it("lists a group's viewers most recently seen first, with first and last seen and their sessions, a page at a time, once counted", async () => {
    await api.getOrCreate({ user_group_id: 'v-list', name: 'Listed' });
    await server.services.embedSessions.flushActivity();
    assert.deepEqual((await viewersOf('v-list')).json, { success: 1, viewers: [], next_cursor: null });
    for (const id of ['first', 'second', 'second', 'third', 'first']) await mint({ user_group_id: 'v-list', viewer: { id } });
    await mint({ user_group_id: 'v-list' });
    await server.services.embedSessions.flushActivity();
    const all = (await viewersOf('v-list')).json;
    assert.deepEqual(
      all.viewers.map((v: { viewer_id: string; sessions: number }) => [v.viewer_id, v.sessions]),
      [
        ['first', 2],
        ['third', 1],
        ['second', 2],
      ],
    );
    for (const v of all.viewers) assert.ok(v.first_seen_at <= v.last_seen_at);
    assert.equal(all.next_cursor, null);
    const page1 = (await viewersOf('v-list', '?limit=2')).json;
    assert.equal(page1.viewers.length, 2);
    const page2 = (await viewersOf('v-list', `?limit=2&after=${page1.next_cursor}`)).json;
    assert.deepEqual(
      [...page1.viewers, ...page2.viewers].map((v: { viewer_id: string }) => v.viewer_id),
      ['first', 'third', 'second'],
    );
    assert.equal(page2.next_cursor, null);

    assert.equal((await viewersOf('v-list', '', await server.client({ access: 'read-only' }))).status, 200);
    assertError(await viewersOf('v-list', '', await server.client({ access: 'embed' })), 403, 'forbidden');
    assertError(await viewersOf('v-list', '', await server.client({ environment: 'Testing' })), 404, 'not_found');
    assertError(await viewersOf('nobody'), 404, 'not_found');
    assertError(await viewersOf('v-list', '?after=garbage'), 400, 'invalid_request');
  });
});
