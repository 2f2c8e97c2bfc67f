import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import type { ApiClient } from '../../helpers/http-client.js';

interface WireEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Every event after `after`, page by page, and the cursor to come back with. */
async function eventsAfter(api: ApiClient, after: string | undefined, limit = 2): Promise<{ events: WireEvent[]; cursor: string }> {
  const events: WireEvent[] = [];
  let cursor = after;
  for (let pages = 0; pages < 100; pages++) {
    const res = await api.call('GET', undefined, { path: `/api/events?limit=${limit}${cursor === undefined ? '' : `&after=${cursor}`}` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['cache-control'], 'no-store');
    events.push(...res.json.events);
    if (res.json.events.length === 0) return { events, cursor: res.json.next_cursor };
    cursor = res.json.next_cursor;
  }
  throw new Error('more than 100 pages');
}

describe('GET /api/events', () => {
  const server = buildForSuite({
    clients: { testing: { environment: 'Testing' }, reader: { access: 'read-only' }, embed: { access: 'embed' } },
  });
  let token: string;
  let teamId: number;
  before(async () => {
    const created = await server.api.getOrCreate({ user_group_id: 'ev-http', name: 'Events', properties: { plan: 'never-in-an-event' } });
    assert.equal(created.status, 200, created.text);
    token = created.json.user_group.token;
    teamId = created.json.user_group.team_id;
    assert.equal(
      (await server.api.update({ user_group_id: 'ev-http', name: 'Renamed', properties: { plan: 'never-in-an-event-either' } })).status,
      200,
    );
    assert.equal((await server.api.rotate(token)).status, 200);
    await server.clients.testing.getOrCreate({ user_group_id: 'ev-http-testing', name: 'Other environment' });
  });

  it("lists the environment's changes in commit order, names only, across pages", async () => {
    const { events, cursor } = await eventsAfter(server.api, undefined);
    const mine = events.filter((e) => e.data.user_group_id === 'ev-http');
    const named = { api_environment_tag: 'Customer', user_group_id: 'ev-http', team_id: teamId };
    assert.deepEqual(
      mine.map(({ type, data }) => ({ type, data })),
      [
        { type: 'user_group.created', data: named },
        { type: 'user_group.updated', data: { ...named, changed: ['name', 'properties'] } },
        { type: 'user_group.token_rotated', data: named },
      ],
    );
    assert.ok(
      events.every((e) => e.data.api_environment_tag === 'Customer'),
      'a key sees its environment only',
    );
    assert.ok(
      events.some((e) => e.type === 'api_key.created'),
      "the suite's own keys were created by events too",
    );
    const text = JSON.stringify(events);
    for (const secret of ['never-in-an-event', 'ugt_', 'ugsk_', token]) assert.ok(!text.includes(secret), `no ${secret} in events`);
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);

    const deleted = await server.api.call('DELETE', { user_group_id: 'ev-http' });
    assert.equal(deleted.status, 200, deleted.text);
    const next = await eventsAfter(server.api, cursor);
    assert.deepEqual(
      next.events.map(({ type, data }) => ({ type, data })),
      [{ type: 'user_group.deleted', data: named }],
    );
    assert.deepEqual((await eventsAfter(server.api, next.cursor)).events, [], 'nothing new: the cursor stays');
  });

  it('answers a read-only key, and a key of the other environment with its own events', async () => {
    assert.ok((await eventsAfter(server.clients.reader, undefined)).events.length > 0);
    const { events } = await eventsAfter(server.clients.testing, undefined, 100);
    assert.ok(events.some((e) => e.data.user_group_id === 'ev-http-testing'));
    assert.ok(events.every((e) => e.data.api_environment_tag === 'Testing'));
  });

  it('refuses an embed key, a malformed cursor and a bad limit with a clear 4xx', async () => {
    const embed = await server.clients.embed.call('GET', undefined, { path: '/api/events' });
    assert.equal(embed.status, 403);
    assert.equal(embed.json.error.code, 'forbidden');
    for (const query of ['after=abc', 'after=-1', 'after=99999999999999999999', 'limit=0', 'limit=1001', 'limit=x']) {
      const res = await server.api.call('GET', undefined, { path: `/api/events?${query}` });
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.json.success, 0);
      assert.equal(res.json.error.code, 'invalid_request');
    }
    const unauthenticated = await server.api.call('GET', undefined, { path: '/api/events', headers: { authorization: 'Token nope' } });
    assert.equal(unauthenticated.status, 401);
  });
});
