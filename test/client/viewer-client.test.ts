import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeJwt } from 'jose';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

const failsWith = (status: number, code: string) => (e: unknown) =>
  e instanceof UserGroupServiceError && e.status === status && e.code === code;

describe('UserGroupClient viewers against a live server', () => {
  const server = buildForSuite({ apiKey: false });
  let client: UserGroupClient;
  const clientWith = async (access: 'read-only' | 'embed') =>
    new UserGroupClient({
      baseUrl: server.url,
      apiKey: (await server.services.apiKeys.create({ environment: 'Customer', access })).key,
    });
  before(async () => {
    const { key } = await server.services.apiKeys.create({ environment: 'Customer', access: 'read-write' });
    client = new UserGroupClient({ baseUrl: server.url, apiKey: key });
    // A path separator, a query and a fragment character, a space: each must reach the service as one path segment.
    await client.getOrCreate({ user_group_id: 'acme/eu ?#', name: 'Acme EU', properties: { region: 'eu', tier: 'gold' } });
  });

  it("mints with a viewer: the token names it in vid and its attributes win over the group's properties", async () => {
    const session = await client.mintEmbedSession({
      user_group_id: 'acme/eu ?#',
      viewer: { id: 'ana@acme.test', attributes: { sales_rep: 'ana', tier: null } },
    });
    const claims = decodeJwt(session.token);
    assert.equal(claims['vid'], 'ana@acme.test');
    assert.deepEqual(claims['props'], { region: 'eu', sales_rep: 'ana' });
  });

  it('lists the viewers a page at a time under the wire names, most recently seen first, with their sessions', async () => {
    await client.getOrCreate({ user_group_id: 'listed/1', name: 'Listed' });
    for (const id of ['ana', 'bo', 'ana', 'cy']) {
      await client.mintEmbedSession({ user_group_id: 'listed/1', viewer: { id } });
      await sleep(2); // distinct last-seen times: equal ones would order by id
    }
    await server.services.embedSessions.flushActivity();

    const first = await client.listViewers('listed/1', { limit: 2 });
    assert.deepEqual(
      first.viewers.map((v) => [v.viewer_id, v.sessions]),
      [
        ['cy', 1],
        ['ana', 2],
      ],
    );
    const ana = first.viewers[1]!;
    assert.deepEqual(Object.keys(ana), ['viewer_id', 'first_seen_at', 'last_seen_at', 'sessions']);
    assert.ok(ana.first_seen_at <= ana.last_seen_at);
    assert.equal(typeof first.next_cursor, 'string');
    const rest = await client.listViewers('listed/1', { after: first.next_cursor!, limit: 2 });
    assert.deepEqual(
      rest.viewers.map((v) => v.viewer_id),
      ['bo'],
    );
    assert.equal(rest.next_cursor, null);
    const acme = await client.listViewers('acme/eu ?#');
    assert.deepEqual(
      acme.viewers.map((v) => [v.viewer_id, v.sessions]),
      [['ana@acme.test', 1]],
      'a group id with /, ? and # reaches the service whole',
    );
    assert.equal(acme.next_cursor, null);
  });

  it("ends a viewer's sessions (an id with /, ? and # reaching the service whole), answered under the wire names, and shows the feed entry", async () => {
    const viewerId = 'dept/sales?who=ana#1';
    const ended = await client.mintEmbedSession({ user_group_id: 'acme/eu ?#', viewer: { id: viewerId } });
    const prefix = await client.mintEmbedSession({ user_group_id: 'acme/eu ?#', viewer: { id: 'dept' } });
    const feedBefore = await client.embedRevocations({ limit: 1000 });

    const asked = Date.now();
    const revoked = await client.revokeViewerSessions(viewerId);
    assert.deepEqual(Object.keys(revoked), ['viewer_id', 'revoked_at']);
    assert.equal(revoked.viewer_id, viewerId);
    assert.ok(Date.parse(revoked.revoked_at) >= asked, 'the cut-off: at or past the call');
    assert.deepEqual(await client.introspect(ended.token), { active: false });
    assert.equal((await client.introspect(prefix.token)).active, true, 'only that viewer, not a viewer whose id is a prefix of it');

    const feed = await client.embedRevocations({ after: feedBefore.next_cursor });
    assert.deepEqual(
      feed.revocations.map((r) => [r.viewer_id, r.user_group_id, r.session_id, r.reason, r.revoked_at]),
      [[viewerId, null, null, 'viewer_revoked', revoked.revoked_at]],
    );
    const after = await client.mintEmbedSession({ user_group_id: 'acme/eu ?#', viewer: { id: viewerId } });
    assert.equal((await client.introspect(after.token)).active, true, 'a session minted once the promise resolved works');
  });

  it('throws the service error: an unknown group, a made-up cursor, an embed key listing, a read-only key ending', async () => {
    await assert.rejects(client.listViewers('nobody'), failsWith(404, 'not_found'));
    await assert.rejects(client.listViewers('listed/1', { after: 'not-a-cursor' }), failsWith(400, 'invalid_request'));
    await assert.rejects(client.listViewers('listed/1', { limit: 0 }), failsWith(400, 'invalid_request'));
    await assert.rejects((await clientWith('embed')).listViewers('listed/1'), failsWith(403, 'forbidden'));
    await assert.rejects((await clientWith('read-only')).revokeViewerSessions('ana'), failsWith(403, 'forbidden'));
    await assert.rejects(client.revokeViewerSessions('x'.repeat(256)), failsWith(400, 'invalid_request'));
  });
});
