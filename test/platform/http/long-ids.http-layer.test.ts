import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { ConsoleClient } from '../../helpers/console-client.js';

/**
 * Every id the API accepts (up to 255 characters) works on every route and console page that takes it in
 * the path: the router's own limit (100 by default) answered 400 before the route saw it (issue 26, item 5).
 */
describe('ids of 101 to 255 characters on every path that carries one', () => {
  const server = buildForSuite();
  // Reserved characters (percent-encoded in the path) and characters of two and four UTF-8 bytes: the longest paths.
  const IDS = ['p'.repeat(250) + '/?#%x', 'é'.repeat(255), '😀'.repeat(255)];
  const path = (id: string) => `/api/user_groups/${encodeURIComponent(id)}`;
  let browser: ConsoleClient;

  before(async () => {
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(server.api.key!)).status, 303);
  });

  for (const [n, id] of IDS.entries()) {
    it(`reads, lists under, moves and deletes a group whose id is 255 characters (${n + 1} of ${IDS.length})`, async () => {
      const { api } = server;
      const parent = `${[...id].slice(0, -2).join('')}-p`;
      assert.equal([...parent].length, [...id].length);
      assert.equal((await api.getOrCreate({ user_group_id: parent, name: 'Parent' })).status, 200);
      const created = await api.getOrCreate({ user_group_id: id, name: 'Long', parent_user_group_id: parent });
      assert.equal(created.status, 200, created.text);

      const read = await api.call('GET', undefined, { path: path(id) });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.user_group.provided_id, id);
      assert.equal((await api.call('HEAD', undefined, { path: path(id) })).status, 200);
      const descendants = await api.call('GET', undefined, { path: `${path(parent)}/descendants` });
      assert.equal(descendants.status, 200, descendants.text);
      assert.deepEqual(
        descendants.json.user_groups.map((g: { provided_id: string }) => g.provided_id),
        [id],
      );
      const children = await api.call('GET', undefined, { path: `/api/user_groups?parent=${encodeURIComponent(parent)}` });
      assert.deepEqual(
        children.json.user_groups.map((g: { provided_id: string }) => g.provided_id),
        [id],
      );

      const moved = await api.update({ user_group_id: id, parent_user_group_id: null });
      assert.equal(moved.status, 200, moved.text);
      assert.equal((await api.call('GET', undefined, { path: `${path(parent)}/descendants` })).json.user_groups.length, 0);

      const page = `/console/groups/${encodeURIComponent(id)}`;
      const shown = await browser.get(page);
      assert.equal(shown.status, 200, shown.text.slice(0, 300));
      assert.equal((await browser.get(`${page}/token`)).text, created.json.user_group.token);
      const saved = await browser.post(`${page}/edit`, {
        _csrf: await browser.csrfToken(page),
        name: 'Renamed',
        mapping: '',
        properties: '',
      });
      assert.equal(saved.status, 303, saved.text.slice(0, 300));
      const rotated = await browser.post(`${page}/rotate`, { _csrf: await browser.csrfToken(page) });
      assert.equal(rotated.status, 303, rotated.text.slice(0, 300));
      const previewed = await browser.post(`${page}/preview`, { _csrf: await browser.csrfToken(page) });
      assert.equal(previewed.status, 200, previewed.text.slice(0, 300));
      const deleted = await browser.post(`${page}/delete`, { _csrf: await browser.csrfToken(page), confirm: id });
      assert.equal(deleted.status, 303, deleted.text.slice(0, 300));
      assert.equal((await api.call('GET', undefined, { path: path(id) })).status, 404);

      assert.equal((await api.call('DELETE', { user_group_id: parent })).status, 200);
      assert.equal((await api.call('GET', undefined, { path: path(parent) })).status, 404);
    });
  }

  it('still refuses an id one character too long, naming the limit', async () => {
    const res = await server.api.call('GET', undefined, { path: path('q'.repeat(256)) });
    assert.equal(res.status, 400);
    assert.match(res.json.error.message, /"user_group_id" must NOT have more than 255 characters/);
  });
});
