import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { ConsoleClient } from '../../helpers/console-client.js';

const unescape = (text: string) =>
  text
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * Every console link to a group opens that group once a browser has resolved it (WHATWG URL, as fetch
 * does here): `.` and `..` are dot segments even percent-encoded, and `/`, `%`, `?`, `#` must stay in
 * the id (issue 26, item 10). The hrefs and form actions are taken from the pages, not built by the test.
 */
describe('operator console: links to groups whatever their id', () => {
  const server = buildForSuite();
  const IDS = ['.', '..', '../groups', 'a/b', '100%', '%2E%2E', 'what?', '#hash', 'plain'];
  let browser: ConsoleClient;

  before(async () => {
    for (const id of IDS) assert.equal((await server.api.getOrCreate({ user_group_id: id, name: `Group ${id}` })).status, 200);
    assert.equal((await server.api.getOrCreate({ user_group_id: 'child-of-dot', name: 'Child', parent_user_group_id: '..' })).status, 200);
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(server.api.key!)).status, 303);
  });

  /** Where a browser on `page` goes for `href`: the path and query it sends. */
  const resolve = (href: string, page = '/console/groups') => {
    const url = new URL(unescape(href), new URL(page, server.url));
    return url.pathname + url.search;
  };
  const idOnPage = (html: string) => unescape(/<dt>user_group_id<\/dt><dd><code>([^<]*)<\/code>/.exec(html)?.[1] ?? '');

  for (const id of IDS) {
    it(`opens ${JSON.stringify(id)} from the list, and each of its forms acts on it`, async () => {
      const list = await browser.get(`/console/groups?prefix=${encodeURIComponent(id)}`);
      const href = new RegExp(`<a href="([^"]+)">${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/&/g, '&amp;')}</a>`).exec(
        list.text,
      )?.[1];
      assert.ok(href, `a link to ${id}`);
      const path = resolve(href);
      const page = await browser.get(path);
      assert.equal(page.status, 200, `${href} -> ${path}`);
      assert.equal(idOnPage(page.text), id, `${href} -> ${path}`);

      const actions = [...page.text.matchAll(/action="([^"]*\/(?:edit|preview|rotate|delete)(?:\?[^"]*)?)"/g)].map((m) =>
        resolve(m[1]!, path),
      );
      assert.equal(actions.length, 4, 'edit, preview, rotate, delete');
      const token = resolve(/data-token-url="([^"]+)"/.exec(page.text)![1]!, path);
      const { json } = await server.api.getOrCreate({ user_group_id: id });
      assert.equal((await browser.get(token)).text, json.user_group.token);

      const [edit, preview, rotate, remove] = actions as [string, string, string, string];
      const saved = await browser.post(edit, { _csrf: await browser.csrfToken(path), name: `Renamed ${id}`, mapping: '', properties: '' });
      assert.equal(saved.status, 303, saved.text.slice(0, 300));
      const back = await browser.get(resolve(saved.headers.get('location')!, edit));
      assert.equal(idOnPage(back.text), id, 'the redirect comes back to the group');
      assert.match(back.text, /Saved\./);
      assert.equal((await server.api.getOrCreate({ user_group_id: id })).json.user_group.name, `Renamed ${id}`);
      const previewed = await browser.post(preview, { _csrf: await browser.csrfToken(path) });
      assert.ok(unescape(previewed.text).includes(`"sub": ${JSON.stringify(id)}`), 'the preview is of this group');
      const rotated = await browser.post(rotate, { _csrf: await browser.csrfToken(path) });
      assert.equal(idOnPage((await browser.get(resolve(rotated.headers.get('location')!, rotate))).text), id);
      assert.notEqual((await server.api.getOrCreate({ user_group_id: id })).json.user_group.token, json.user_group.token);
      if (id === '..') return; // it has a child: deleting it is another test's business
      const deleted = await browser.post(remove, { _csrf: await browser.csrfToken(path), confirm: id });
      assert.equal(deleted.status, 303, deleted.text.slice(0, 300));
      assert.equal(
        (await server.api.call('GET', undefined, { path: `/api/user_groups?q=${encodeURIComponent(id)}` })).json.user_groups.some(
          (g: { provided_id: string }) => g.provided_id === id,
        ),
        false,
      );
    });
  }

  it('links a child to its parent ".." and the parent to its child', async () => {
    const child = await browser.get('/console/groups/child-of-dot');
    const parentHref = /<ol class="lineage"[^>]*>\s*<li><a href="([^"]+)">/.exec(child.text)?.[1];
    assert.ok(parentHref);
    const parent = await browser.get(resolve(parentHref, '/console/groups/child-of-dot'));
    assert.equal(idOnPage(parent.text), '..');
    const childHref = /<ul class="children">\s*<li><a href="([^"]+)">/.exec(parent.text)?.[1];
    assert.equal(idOnPage((await browser.get(resolve(childHref!, '/console/group?id=..'))).text), 'child-of-dot');
  });
});
