import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleClient, unescapeHtml } from '../../helpers/console-client.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';

/** What a group's forms answer: the API's own validation messages beside the field, and ids that need escaping. */
describe('operator console: group pages and forms', () => {
  const server = buildForSuite();
  let api: ApiClient;
  let browser: ConsoleClient;
  const ODD_ID = 'team/a b?&#x';
  before(async () => {
    api = server.api;
    await api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await api.getOrCreate({ user_group_id: ODD_ID, name: 'Odd <b>name</b>' });
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
  });

  const errorOf = (html: string, field: string) =>
    /<p id="[a-z]+_error" class="error"[^>]*>([^<]*)<\/p>/.exec(html.slice(html.indexOf(`id="${field}"`)))?.[1];
  const unescape = unescapeHtml;

  it('shows, beside the field, the message PUT /api/user gives for the same value, and changes nothing', async () => {
    const cases = [
      { field: 'mapping', form: { mapping: '{"40": {"nested": true}}' }, body: { mapping: { '40': { nested: true } } } },
      { field: 'name', form: { name: 'x'.repeat(256) }, body: { name: 'x'.repeat(256) } },
      { field: 'properties', form: { properties: '[1, 2]' }, body: { properties: [1, 2] } },
      {
        field: 'properties',
        form: { properties: JSON.stringify({ blob: 'x'.repeat(70 * 1024) }) },
        body: { properties: { blob: 'x'.repeat(70 * 1024) } },
      },
    ];
    for (const { field, form, body } of cases) {
      const expected = (await api.update({ user_group_id: 'acme', ...body })).json.error.message as string;
      const answer = await browser.post('/console/groups/acme/edit', {
        _csrf: await browser.csrfToken('/console/groups/acme'),
        name: 'Acme',
        mapping: '',
        properties: '',
        ...form,
      });
      assert.equal(answer.status, 400, field);
      assert.equal(unescape(errorOf(answer.text, field) ?? ''), expected, `${field}: ${JSON.stringify(form).slice(0, 60)}`);
      assert.match(answer.text, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
    }
    const { json } = await api.getOrCreate({ user_group_id: 'acme' });
    assert.equal(json.user_group.name, 'Acme');
    assert.deepEqual(json.user_group.properties, { region: 'eu' });
  });

  it('keeps what was typed when refusing it', async () => {
    const typed = '{"region": "us", oops}';
    const answer = await browser.post('/console/groups/acme/edit', {
      _csrf: await browser.csrfToken('/console/groups/acme'),
      name: 'Acme',
      mapping: '',
      properties: typed,
    });
    assert.equal(answer.status, 400);
    assert.ok(
      answer.text.includes('{&#34;region&#34;: &#34;us&#34;, oops}') || answer.text.includes('{&quot;region&quot;: &quot;us&quot;, oops}'),
      'the textarea holds the invalid JSON',
    );
    assert.match(unescape(errorOf(answer.text, 'properties') ?? ''), /^"properties" is not valid JSON: /);
  });

  it('escapes what groups hold, and handles ids that need encoding in every link and form', async () => {
    const list = await browser.get('/console/groups');
    assert.ok(list.text.includes('Odd &lt;b&gt;name&lt;/b&gt;'));
    assert.ok(!list.text.includes('<b>name</b>'));
    const path = `/console/groups/${encodeURIComponent(ODD_ID)}`;
    assert.ok(list.text.includes(`href="${path}"`));
    const page = await browser.get(path);
    assert.equal(page.status, 200);
    assert.ok(page.text.includes(`action="${path}/edit"`));
    const saved = await browser.post(`${path}/edit`, {
      _csrf: await browser.csrfToken(path),
      name: 'Odd',
      mapping: '{"40": "213"}',
      properties: '',
    });
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.get('location'), `${path}?done=saved`);
    const { json } = await api.getOrCreate({ user_group_id: ODD_ID });
    const { group } = await server.services.userGroups.get({ keyId: 'test', environment: 'Customer', access: 'read-only' }, ODD_ID);
    assert.deepEqual([group.name, group.mapping], ['Odd', { '40': '213' }]);
    const token = await browser.get(`${path}/token`);
    assert.equal(token.text, json.user_group.token);
    assert.equal(token.headers.get('cache-control'), 'no-store');
  });

  it("answers an unknown group with a 404 page, not the API's JSON", async () => {
    const missing = await browser.get('/console/groups/nobody');
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type')!, /^text\/html/);
    assert.match(missing.text, /No user group/);
  });

  it('deletes a group with children only when "delete its whole subtree" is ticked; without it, the form says why beside the box', async () => {
    await api.getOrCreate({ user_group_id: 'tree', name: 'Tree' });
    await api.getOrCreate({ user_group_id: 'tree-leaf', name: 'Leaf', parent_user_group_id: 'tree' });
    const page = await browser.get('/console/groups/tree');
    assert.match(page.text, /<input id="cascade" name="cascade" type="checkbox" value="1"/);
    assert.match(page.text, /<label for="cascade">Delete its whole subtree/);
    const refused = await browser.post('/console/groups/tree/delete', {
      _csrf: await browser.csrfToken('/console/groups/tree'),
      confirm: 'tree',
    });
    assert.equal(refused.status, 409);
    assert.match(refused.headers.get('content-type')!, /^text\/html/);
    assert.match(refused.text, /<dialog id="delete-dialog"[^>]* open/, 'the delete form is open again');
    assert.match(unescape(errorOf(refused.text, 'cascade') ?? ''), /child groups: tick "Delete its whole subtree"/);
    assert.equal((await api.getOrCreate({ user_group_id: 'tree-leaf' })).json.new_user_group, false, 'nothing deleted');
    const deleted = await browser.post('/console/groups/tree/delete', {
      _csrf: await browser.csrfToken('/console/groups/tree'),
      confirm: 'tree',
      cascade: '1',
    });
    assert.equal(deleted.status, 303, deleted.text.slice(0, 400));
    assert.equal(deleted.headers.get('location'), '/console/groups?done=deleted');
    const reader = { keyId: 'test', environment: 'Customer' as const, access: 'read-only' as const };
    for (const id of ['tree', 'tree-leaf']) await assert.rejects(server.services.userGroups.get(reader, id), { code: 'not_found' }, id);
  });

  it('previews an embed session as its claims, without the token', async () => {
    const answer = await browser.post('/console/groups/acme/preview', { _csrf: await browser.csrfToken('/console/groups/acme') });
    assert.equal(answer.status, 200);
    const claims = JSON.parse(unescape(/<pre class="claims">([^<]*)<\/pre>/.exec(answer.text)![1]!));
    assert.equal(claims.sub, 'acme');
    assert.equal(claims.exp - claims.iat, 300);
    assert.deepEqual(claims.props, { region: 'eu' });
    assert.ok(!/eyJ[A-Za-z0-9_-]+\.eyJ/.test(answer.text), 'no JWT on the page');
  });
});
