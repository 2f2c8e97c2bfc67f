import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
// Through the package's own export, as a user imports it.
import { UserGroupClient, UserGroupServiceError } from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

/**
 * Ids a URL path can lose or misread: the dot segments `.` and `..` (URL parsers resolve them away, percent-encoded or not), ids
 * that look like a dot segment percent-encoded, a path separator, a percent sign, a query and a fragment character, non-ASCII.
 */
const IDS = ['.', '..', '...', '%2E', '%2e%2E', '%', '/', '../x', '?', '#', 'café', '東京/..'];

const failsNaming = (code: string, id: string) => (e: unknown) =>
  e instanceof UserGroupServiceError && e.code === code && e.message.includes(JSON.stringify(id));

/**
 * Issue 37, item 11: every client method that puts an id in the path reaches the service with exactly that id (the
 * answer is about it, never another route's): revokeViewerSessions('..') used to end nothing and hit DELETE /api/sessions,
 * groupUsage('..') GET /api/usage.
 */
describe('UserGroupClient: every id the service accepts, in every method', { concurrency: true }, () => {
  // The fetch client works in the Testing environment: the same ids, other groups and viewers, as the tests run side by side.
  const server = buildForSuite({ clients: { testing: { environment: 'Testing' } } });
  let client: UserGroupClient;
  before(() => {
    client = new UserGroupClient({ baseUrl: server.url, apiKey: server.api.key! });
  });

  for (const id of IDS) {
    it(`reaches the group and the viewer ${JSON.stringify(id)}`, async () => {
      const created = await client.getOrCreate({ user_group_id: id, name: 'Odd' });
      assert.equal(created.user_group.provided_id, id);
      await client.update({ user_group_id: id, properties: { id } });
      const child = `child of ${id}`;
      await client.getOrCreate({ user_group_id: child, name: 'Child', parent_user_group_id: id });

      const read = await client.get(id);
      assert.equal(read.provided_id, id);
      assert.deepEqual(read.properties, { id });
      const below = [];
      for await (const page of client.descendants(id)) below.push(...page.map((g) => g.provided_id));
      assert.deepEqual(below, [child]);

      const session = await client.mintEmbedSession({ user_group_id: id, viewer: { id } });
      assert.deepEqual([decodeJwt(session.token).sub, decodeJwt(session.token)['vid']], [id, id]);
      await server.services.embedSessions.flushActivity();
      const seen = await client.listViewers(id);
      assert.deepEqual(
        seen.viewers.map((v) => [v.viewer_id, v.sessions]),
        [[id, 1]],
      );
      const usage = await client.groupUsage(id, { granularity: 'hour' });
      assert.equal(
        usage.reduce((sum, bucket) => sum + bucket.sessions, 0),
        1,
      );

      const revoked = await client.revokeViewerSessions(id);
      assert.equal(revoked.viewer_id, id);
      assert.deepEqual(await client.introspect(session.token), { active: false });

      // Ids the service makes itself (es_…, wh_…) never look so, but the same paths carry whatever is asked for.
      await assert.rejects(client.revokeEmbedSession(id), failsNaming('not_found', id));
      await assert.rejects(client.getWebhook(id), failsNaming('not_found', id));
      await assert.rejects(client.enableWebhook(id), failsNaming('not_found', id));
      await assert.rejects(client.rotateWebhookSecret(id), failsNaming('not_found', id));
      await assert.rejects(client.webhookDeliveries(id), failsNaming('not_found', id));
      await assert.rejects(client.deleteWebhook(id), failsNaming('not_found', id));

      await client.delete(id, { cascade: true });
      await assert.rejects(client.get(id), failsNaming('not_found', id));
      await assert.rejects(client.get(child), failsNaming('not_found', child));
    });
  }

  it('with fetch, reaches every id but "." and "..", which it refuses before sending anything (fetch would resolve them away)', async () => {
    const viaFetch = new UserGroupClient({ baseUrl: server.url, apiKey: server.clients.testing.key!, transport: 'fetch' });
    await Promise.all(
      IDS.filter((id) => id !== '.' && id !== '..').map(async (id) => {
        await viaFetch.getOrCreate({ user_group_id: id, name: 'Fetched' });
        assert.equal((await viaFetch.get(id)).provided_id, id);
        assert.equal((await viaFetch.revokeViewerSessions(id)).viewer_id, id);
        await viaFetch.delete(id);
      }),
    );
    const refused = (e: unknown) =>
      e instanceof UserGroupServiceError && e.status === 0 && e.code === 'invalid_request' && /fetch/.test(e.message);
    for (const id of ['.', '..']) {
      await viaFetch.getOrCreate({ user_group_id: id, name: 'Dotted' });
      await assert.rejects(viaFetch.get(id), refused);
      await assert.rejects(viaFetch.groupUsage(id), refused);
      await assert.rejects(viaFetch.listViewers(id), refused);
      await assert.rejects(viaFetch.revokeViewerSessions(id), refused);
      await assert.rejects(
        (async () => {
          for await (const page of viaFetch.descendants(id)) assert.fail(`a page: ${JSON.stringify(page)}`);
        })(),
        refused,
      );
      // Ids in bodies and query strings are no path segment: fetch sends them as they are.
      assert.equal((await viaFetch.getOrCreate({ user_group_id: id })).user_group.provided_id, id);
      await viaFetch.delete(id);
    }
  });
});
