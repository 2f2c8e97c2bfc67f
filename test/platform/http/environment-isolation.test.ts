import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite, type TestClient } from '../../helpers/build.js';
import { assertError } from './assert-error.js';

/**
 * Events, revocation feed entries and webhook deliveries are numbered by one sequence for both
 * environments. What a key is handed out from them (cursors, delivery ids) must not count the other
 * environment's activity (issue 26, item 7): a Testing key learns nothing of Customer's.
 */
describe('what a key sees of the other environment: nothing', () => {
  const server = buildForSuite({ webhooks: { allowPrivateTargets: true }, clients: { testing: { environment: 'Testing' } } });
  const SEALED = /^[A-Za-z0-9_-]{22}$/;
  let counter = 0;

  /** Changes Customer makes between two Testing reads: groups, an embed session ended, a delivery. */
  async function customerActivity(): Promise<void> {
    const { api } = server;
    for (let i = 0; i < 3; i++) {
      const id = `customer-${++counter}`;
      await api.getOrCreate({ user_group_id: id, name: 'C' });
      await api.update({ user_group_id: id, name: 'C2' });
      const minted = await api.call('POST', { user_group_id: id }, { path: '/api/embed_sessions' });
      assert.equal(
        (await api.call('DELETE', undefined, { path: `/api/embed_sessions/${minted.json.embed_session.session_id}` })).status,
        200,
      );
    }
  }

  const events = (key: TestClient, after?: string) =>
    key.call('GET', undefined, { path: `/api/events${after === undefined ? '' : `?after=${after}`}` });
  const feed = (key: TestClient, after?: string) =>
    key.call('GET', undefined, { path: `/api/embed_sessions/revocations${after === undefined ? '' : `?after=${after}`}` });

  it('hands the events cursor out sealed: unchanged by Customer events, bound to its environment', async () => {
    const {
      api,
      clients: { testing },
    } = server;
    await testing.getOrCreate({ user_group_id: 'testing-1', name: 'T' });
    const first = await events(testing);
    assert.equal(first.status, 200, first.text);
    const cursor = first.json.next_cursor as string;
    assert.match(cursor, SEALED, 'not the shared sequence number');

    await customerActivity();
    assert.deepEqual((await events(testing)).json, first.json, 'the same page: ids, count, cursor');
    assert.deepEqual((await events(testing, cursor)).json, { success: 1, events: [], next_cursor: cursor });

    await testing.getOrCreate({ user_group_id: 'testing-2', name: 'T' });
    const next = await events(testing, cursor);
    assert.deepEqual(
      next.json.events.map((e: { data: { user_group_id: string } }) => e.data.user_group_id),
      ['testing-2'],
    );
    assert.match(next.json.next_cursor, SEALED);
    for (const event of [...first.json.events, ...next.json.events]) assert.match(event.id, /^evt_[0-9a-f]{32}$/);

    const elsewhere = assertError(await events(api, cursor), 400, 'invalid_request');
    assert.match(elsewhere, /"after" is not a cursor this service handed out to this environment/);
    assert.match(
      assertError(await events(testing, '3'), 400, 'invalid_request'),
      /"after" must be a next_cursor this service handed out/,
      'the old numeric form is refused',
    );
  });

  it('hands the revocation feed cursor out sealed, unchanged by Customer revocations', async () => {
    const {
      api,
      clients: { testing },
    } = server;
    await testing.getOrCreate({ user_group_id: 'testing-feed', name: 'T' });
    const minted = await testing.call('POST', { user_group_id: 'testing-feed' }, { path: '/api/embed_sessions' });
    assert.equal(
      (await testing.call('DELETE', undefined, { path: `/api/embed_sessions/${minted.json.embed_session.session_id}` })).status,
      200,
    );
    const first = await feed(testing);
    assert.equal(first.json.revocations.length, 1);
    assert.match(first.json.next_cursor, SEALED, 'not the shared sequence number');
    await customerActivity();
    assert.deepEqual((await feed(testing)).json, first.json);
    assert.deepEqual((await feed(testing, first.json.next_cursor)).json.next_cursor, first.json.next_cursor);
    assertError(await feed(api, first.json.next_cursor), 400, 'invalid_request');
  });

  it('shows delivery ids and their cursor sealed, whatever Customer delivers in between', async () => {
    const {
      api,
      clients: { testing },
    } = server;
    const register = (key: TestClient) => key.call('POST', { url: 'https://127.0.0.1:9/hook' }, { path: '/api/webhooks' });
    const testingHook = (await register(testing)).json.webhook.id as string;
    const customerHook = (await register(api)).json.webhook.id as string;
    await testing.getOrCreate({ user_group_id: 'testing-hook', name: 'T' });
    await api.getOrCreate({ user_group_id: 'customer-hook', name: 'C' });
    const eventOf = async (key: TestClient) => ((await events(key)).json.events.at(-1) as { id: string }).id;
    const redeliver = async (key: TestClient, hook: string) => {
      const res = await key.call('POST', { event_id: await eventOf(key) }, { path: `/api/webhooks/${hook}/redeliver` });
      assert.equal(res.status, 202, res.text);
      return res.json.delivery.id as string;
    };

    const ids = [await redeliver(testing, testingHook)];
    for (let i = 0; i < 3; i++) await redeliver(api, customerHook);
    ids.push(await redeliver(testing, testingHook), await redeliver(testing, testingHook));
    for (const id of ids) assert.match(id, /^whd_[A-Za-z0-9_-]{22}$/, 'not the shared row number');

    const page = await testing.call('GET', undefined, { path: `/api/webhooks/${testingHook}/deliveries?limit=2` });
    assert.deepEqual(
      page.json.deliveries.map((d: { id: string }) => d.id),
      [ids[2], ids[1]],
      'newest first, with the ids the redeliveries answered',
    );
    assert.match(page.json.next_cursor, SEALED);
    const rest = await testing.call('GET', undefined, {
      path: `/api/webhooks/${testingHook}/deliveries?limit=2&after=${page.json.next_cursor}`,
    });
    assert.deepEqual(
      rest.json.deliveries.map((d: { id: string }) => d.id),
      [ids[0]],
    );
    assertError(
      await api.call('GET', undefined, { path: `/api/webhooks/${customerHook}/deliveries?after=${page.json.next_cursor}` }),
      400,
      'invalid_request',
    );
  });
});
