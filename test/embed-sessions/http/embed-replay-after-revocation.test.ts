import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite, type TestClient } from '../../helpers/build.js';
import { ConsoleClient } from '../../helpers/console-client.js';
import { assertError } from '../../platform/http/assert-error.js';

/**
 * Issue 26's replays, beyond embed-introspection.test.ts (an ended session,
 * a rotated token, a deleted group, a group created again): a subtree
 * deleted with cascade, a rotation or deletion made in the console, and a
 * revoked API key presented again on every route.
 */

const mint = async (api: TestClient, userGroupId: string): Promise<string> => {
  const res = await api.call('POST', { user_group_id: userGroupId }, { path: '/api/embed_sessions' });
  assert.equal(res.status, 201, res.text);
  return res.json.embed_session.token;
};

async function isActive(api: TestClient, token: string): Promise<boolean> {
  const res = await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' });
  assert.equal(res.status, 200, res.text);
  return res.json.active;
}

describe('replaying an embed token or an API key after its revocation', () => {
  const server = buildForSuite();

  it("a subtree deleted with cascade: every descendant's token is inactive, also once the ids are created again", async () => {
    const { api } = server;
    const ids = ['sub-root', 'sub-child', 'sub-grandchild'];
    for (const [i, id] of ids.entries()) {
      assert.equal(
        (await api.getOrCreate({ user_group_id: id, name: id, ...(i > 0 && { parent_user_group_id: ids[i - 1] }) })).status,
        200,
      );
    }
    const tokens = await Promise.all(ids.map((id) => mint(api, id)));
    for (const token of tokens) assert.equal(await isActive(api, token), true, 'live before the deletion');
    assert.equal((await api.call('DELETE', { user_group_id: 'sub-root', cascade: true })).status, 200);
    for (const [i, token] of tokens.entries()) assert.equal(await isActive(api, token), false, ids[i]);
    for (const id of ids) await api.getOrCreate({ user_group_id: id, name: `${id} again` });
    for (const [i, token] of tokens.entries()) assert.equal(await isActive(api, token), false, `${ids[i]} created again`);
  });

  it("a rotation and a deletion made in the console end the group's sessions as the API's do", async () => {
    const { api } = server;
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
    for (const action of ['rotate', 'delete'] as const) {
      const id = `console-${action}`;
      await api.getOrCreate({ user_group_id: id, name: id });
      const token = await mint(api, id);
      assert.equal(await isActive(api, token), true);
      const path = `/console/groups/${id}`;
      const answer = await browser.post(`${path}/${action}`, { _csrf: await browser.csrfToken(path), confirm: id });
      assert.equal(answer.status, 303, answer.text.slice(0, 300));
      assert.equal(await isActive(api, token), false, action);
    }
  });

  for (const access of ['read-write', 'embed'] as const) {
    it(`a revoked ${access} key is refused on every route it could use, with 401`, async () => {
      const { api } = server;
      await api.getOrCreate({ user_group_id: 'replayed', name: 'Replayed' });
      const key = await server.client({ access });
      const token = await mint(key, 'replayed');
      const sessionId = (await key.call('POST', { user_group_id: 'replayed' }, { path: '/api/embed_sessions' })).json.embed_session
        .session_id;
      await server.services.apiKeys.revoke(key.keyId);
      const calls: [string, string, unknown][] = [
        ['GET', '/api/user', { user_group_id: 'replayed' }],
        ['PUT', '/api/user', { user_group_id: 'replayed', name: 'Taken' }],
        ['POST', '/api/user', { current_token: 'ugt_x' }],
        ['DELETE', '/api/user', { user_group_id: 'replayed' }],
        ['GET', '/api/user_groups', undefined],
        ['GET', '/api/user_groups/replayed', undefined],
        ['POST', '/api/embed_sessions', { user_group_id: 'replayed' }],
        ['POST', '/api/embed_sessions/introspect', { token }],
        ['GET', '/api/embed_sessions/revocations', undefined],
        ['DELETE', `/api/embed_sessions/${sessionId}`, undefined],
        ['GET', '/api/events', undefined],
        ['GET', '/api/webhooks', undefined],
        ['POST', '/api/webhooks', { url: 'https://hooks.example.com/x' }],
      ];
      for (const [method, path, body] of calls) assertError(await key.call(method, body, { path }), 401, 'unauthenticated');
      const browser = new ConsoleClient(server.url);
      assert.equal((await browser.signIn(key.key!)).status, 401, 'nor does it sign in to the console');
      assert.equal((await api.getOrCreate({ user_group_id: 'replayed' })).json.user_group.name, 'Replayed', 'nothing was changed');
    });
  }
});
