import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEmbedVerifier, EmbedTokenError, type EmbedVerifier } from 'user-group-service/embed';
import type { ApiClient } from '../helpers/http-client.js';
import { buildForSuite } from '../helpers/build.js';
import { waitFor } from './fake-embed-service.js';

/**
 * Issue 26's replays against the package's verifier and the real service's
 * revocation feed: a token it verified and cached is refused (token_revoked)
 * after each kind of revocation the service makes.
 */
describe('embed verifier against the service: replay after every kind of revocation', () => {
  // Before the server's own teardown, which buildForSuite registers: what uses the server stops first.
  after(async () => {
    await verifier?.close();
  });
  const server = buildForSuite();
  let api: ApiClient;
  let verifier: EmbedVerifier;
  before(async () => {
    api = server.api;
    const feedKey = await server.client({ access: 'embed' });
    verifier = createEmbedVerifier({ serviceUrl: server.url, apiKey: feedKey.key!, revocationPollMs: 50 });
  });

  const group = async (id: string, parent?: string) => {
    const res = await api.getOrCreate({ user_group_id: id, name: id, ...(parent && { parent_user_group_id: parent }) });
    assert.equal(res.status, 200, res.text);
    return res.json.user_group as { token: string };
  };
  const mint = async (id: string) => {
    const res = await api.call('POST', { user_group_id: id }, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    return res.json.embed_session as { token: string; session_id: string };
  };

  /** Verified (and so cached) before the revocation, refused after it once the feed has told. */
  async function refusedAfter(what: string, tokens: string[], revoke: () => Promise<void>): Promise<void> {
    for (const token of tokens) await verifier.verify(token);
    const before = verifier.status().revocations;
    await revoke();
    await waitFor(`the ${what} in the feed`, () => {
      const now = verifier.status().revocations;
      return now.revokedSessions + now.revokedTokenVersions >= before.revokedSessions + before.revokedTokenVersions + 1;
    });
    for (const token of tokens) {
      await assert.rejects(verifier.verify(token), (e: unknown) => e instanceof EmbedTokenError && e.code === 'token_revoked', what);
    }
  }

  it('an ended session', async () => {
    await group('ended');
    const session = await mint('ended');
    const other = await mint('ended');
    await refusedAfter('ended session', [session.token], async () => {
      assert.equal((await api.call('DELETE', undefined, { path: `/api/embed_sessions/${session.session_id}` })).status, 200);
    });
    assert.equal((await verifier.verify(other.token)).sub, 'ended', "the group's other session lives on");
  });

  it('a rotated group token; a session minted after the rotation is accepted', async () => {
    const { token } = await group('rotated');
    const sessions = [await mint('rotated'), await mint('rotated')];
    await refusedAfter(
      'rotation',
      sessions.map((s) => s.token),
      async () => {
        assert.equal((await api.rotate(token)).status, 200);
      },
    );
    assert.equal((await verifier.verify((await mint('rotated')).token)).sub, 'rotated');
  });

  it('a deleted group, also once a group of the same id exists again', async () => {
    await group('deleted');
    const { token } = await mint('deleted');
    await refusedAfter('deletion', [token], async () => {
      assert.equal((await api.call('DELETE', { user_group_id: 'deleted' })).status, 200);
    });
    await group('deleted');
    await assert.rejects(verifier.verify(token), (e: unknown) => e instanceof EmbedTokenError && e.code === 'token_revoked');
  });

  it("a subtree deleted with cascade: every descendant's token", async () => {
    await group('tree');
    await group('tree-branch', 'tree');
    await group('tree-leaf', 'tree-branch');
    const tokens = [(await mint('tree')).token, (await mint('tree-branch')).token, (await mint('tree-leaf')).token];
    await refusedAfter('cascade deletion', tokens, async () => {
      assert.equal((await api.call('DELETE', { user_group_id: 'tree', cascade: true })).status, 200);
    });
  });
});
