import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from '../../platform/http/assert-error.js';

/**
 * Issue 26, item 4: what an embed key can see, route by route, as
 * docs/security.md states it. It mints for any group of its environment it
 * names, so it sees what a token carries (name, team_id, effective mapping
 * and properties, ancestors, descendants), and introspection answers it that
 * same set and nothing more; every route that lists, reads or changes groups,
 * or shows a group token, answers 403 with nothing of the group in it.
 */
describe('an embed key: what each route shows it', () => {
  const server = buildForSuite();
  let writer: ApiClient;
  let embed: ApiClient;
  let groupToken: string;
  const SECRET_PROPERTY = 'only-in-properties-7f3a';
  before(async () => {
    writer = server.api;
    embed = await server.client({ access: 'embed' });
    await writer.getOrCreate({
      user_group_id: 'agency',
      name: 'Agency',
      mapping: { sales: 'pg-eu' },
      properties: { region: 'eu', tier: 'gold' },
    });
    groupToken = (
      await writer.getOrCreate({
        user_group_id: 'client',
        name: 'Client Ltd',
        parent_user_group_id: 'agency',
        properties: { note: SECRET_PROPERTY },
      })
    ).json.user_group.token;
    await writer.getOrCreate({ user_group_id: 'client-store', name: 'Store', parent_user_group_id: 'client' });
    // One entry in the revocation feed: a rotation.
    groupToken = (await writer.rotate(groupToken)).json.user_group.token;
  });

  const mint = (body: object) => embed.call('POST', body, { path: '/api/embed_sessions' });

  it("mint: 201 for any group of its environment it names, the token carrying the group's name, effective mapping and properties, ancestors and descendants", async () => {
    const res = await mint({ user_group_id: 'client', include_descendants: true });
    assert.equal(res.status, 201, res.text);
    assert.ok(!res.text.includes(groupToken), 'never the group token');
    const claims = decodeJwt(res.json.embed_session.token);
    const read = (await writer.call('GET', undefined, { path: '/api/user_groups/client' })).json.user_group;
    assert.deepEqual(
      { name: claims['name'], tid: claims['tid'], map: claims['map'], props: claims['props'], anc: claims['anc'], desc: claims['desc'] },
      {
        name: read.name,
        tid: read.team_id,
        map: read.effective_mapping,
        props: read.effective_properties,
        anc: read.ancestors,
        desc: ['client-store'],
      },
      'exactly what a read-write key reads of the group, less its token',
    );
    assert.equal((claims['props'] as Record<string, unknown>)['note'], SECRET_PROPERTY);
    assertError(await mint({ user_group_id: 'no-such-group' }), 404, 'not_found');
  });

  it("introspect: the claims of a live token of its environment, exactly the token's own, nothing more", async () => {
    const { token } = (await mint({ user_group_id: 'client' })).json.embed_session;
    const res = await embed.call('POST', { token }, { path: '/api/embed_sessions/introspect' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json, { active: true, ...decodeJwt(token) });
    const minted = (await writer.call('POST', { user_group_id: 'agency' }, { path: '/api/embed_sessions' })).json.embed_session.token;
    assert.deepEqual(
      (await embed.call('POST', { token: minted }, { path: '/api/embed_sessions/introspect' })).json,
      { active: true, ...decodeJwt(minted) },
      'a token another key minted: what that token carries',
    );
  });

  it('list, read, get-or-create, HEAD, update, rotate, delete: 403, showing nothing of any group', async () => {
    const refusals = {
      list: await embed.call('GET', undefined, { path: '/api/user_groups' }),
      children: await embed.call('GET', undefined, { path: '/api/user_groups?parent=agency' }),
      read: await embed.call('GET', undefined, { path: '/api/user_groups/client' }),
      descendants: await embed.call('GET', undefined, { path: '/api/user_groups/agency/descendants' }),
      getOrCreate: await embed.getOrCreate({ user_group_id: 'client' }),
      create: await embed.getOrCreate({ user_group_id: 'made-by-embed', name: 'X' }),
      update: await embed.update({ user_group_id: 'client', name: 'Hijacked' }),
      rotate: await embed.rotate(groupToken),
      delete: await embed.call('DELETE', { user_group_id: 'client' }),
      events: await embed.call('GET', undefined, { path: '/api/events' }),
      webhooks: await embed.call('GET', undefined, { path: '/api/webhooks' }),
    };
    for (const [route, res] of Object.entries(refusals)) {
      assertError(res, 403, 'forbidden');
      for (const shown of ['Client Ltd', 'Agency', SECRET_PROPERTY, 'pg-eu', groupToken])
        assert.ok(!res.text.includes(shown), `${route} shows ${shown}: ${res.text}`);
    }
    const head = await embed.call('HEAD', undefined, { path: '/api/user?user_group_id=client' });
    assert.equal(head.status, 403, 'HEAD cannot probe for groups either');
    assert.equal(
      (await writer.call('HEAD', undefined, { path: '/api/user?user_group_id=made-by-embed' })).status,
      404,
      'the embed key created nothing',
    );
  });

  it("revocation feed: 7 days of its environment's revocations, viewer ids of every group included, never a token, name or property", async () => {
    const viewerSession = await mint({ user_group_id: 'client-store', viewer: { id: 'someone@client.example' } });
    assert.equal(viewerSession.status, 201, viewerSession.text);
    const ended = await embed.call('DELETE', undefined, { path: '/api/viewers/someone@client.example/sessions' });
    assert.equal(ended.status, 200, ended.text);
    const res = await embed.call('GET', undefined, { path: '/api/embed_sessions/revocations' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.environment, 'Customer');
    type Entry = { user_group_id: string | null; reason: string; viewer_id: string | null; revoked_at: string; expires_at: string };
    const entries = res.json.revocations as Entry[];
    assert.deepEqual(
      entries.map((r) => [r.user_group_id, r.viewer_id, r.reason]),
      [
        ['client', null, 'token_rotated'],
        [null, 'someone@client.example', 'viewer_revoked'],
      ],
      "a viewer's entry names the viewer, of whichever group, and no group",
    );
    for (const entry of entries) {
      assert.deepEqual(Object.keys(entry).sort(), [
        'expires_at',
        'reason',
        'revoked_at',
        'session_id',
        'token_version',
        'user_group_id',
        'viewer_id',
      ]);
      const keptMs = Date.parse(entry.expires_at) - Date.parse(entry.revoked_at);
      assert.equal(keptMs, (7 * 86_400 + 60) * 1000, 'kept 7 days and 60 s, as docs/security.md says');
    }
    for (const shown of ['Client Ltd', SECRET_PROPERTY, groupToken]) assert.ok(!res.text.includes(shown));
  });

  it('the other environment: nothing, not even whether a group exists there', async () => {
    const testingWriter = await server.client({ environment: 'Testing' });
    await testingWriter.getOrCreate({ user_group_id: 'testing-only', name: 'Testing only' });
    const there = await mint({ user_group_id: 'testing-only' });
    const nowhere = await mint({ user_group_id: 'no-such-group-anywhere' });
    assertError(there, 404, 'not_found');
    assertError(nowhere, 404, 'not_found');
    assert.equal(
      there.json.error.message.replace('testing-only', 'ID'),
      nowhere.json.error.message.replace('no-such-group-anywhere', 'ID'),
    );
    const testingToken = (await testingWriter.call('POST', { user_group_id: 'testing-only' }, { path: '/api/embed_sessions' })).json
      .embed_session.token;
    assert.deepEqual((await embed.call('POST', { token: testingToken }, { path: '/api/embed_sessions/introspect' })).json, {
      active: false,
    });
  });
});
