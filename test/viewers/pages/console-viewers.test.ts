import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleClient, unescapeHtml, type ConsoleAnswer } from '../../helpers/console-client.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';

const GROUP = 'acme';
const PAGE = `/console/groups/${GROUP}`;
const END = `${PAGE}/end-viewer-sessions`;

/**
 * Issue 29, the console: a group's page lists its viewers (last seen,
 * sessions) and ends a viewer's sessions once its id is typed; a read-only
 * session sees the list without the control and is refused a forged post;
 * the preview mints as a viewer, with attributes.
 */
describe('operator console: viewers on a group page', () => {
  const server = buildForSuite();
  let api: ApiClient & { keyId: string };
  let browser: ConsoleClient;
  let reader: ConsoleClient;

  const mint = async (group: string, viewer?: Record<string, unknown>): Promise<string> => {
    const res = await api.call('POST', { user_group_id: group, ...(viewer ? { viewer } : {}) }, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    return res.json.embed_session.token as string;
  };
  const active = async (token: string): Promise<boolean> =>
    (await api.call('POST', { token }, { path: '/api/embed_sessions/introspect' })).json.active as boolean;
  /** The viewer ids of the list on a page, in order. */
  const listed = (page: ConsoleAnswer) => [...page.text.matchAll(/<tr><td><code>([^<]*)<\/code><\/td>/g)].map((m) => unescapeHtml(m[1]!));
  const rowOf = (page: ConsoleAnswer, viewerId: string) =>
    /<tr><td><code>[^<]*<\/code><\/td>.*?<\/tr>/.exec(page.text.slice(page.text.indexOf(`<tr><td><code>${viewerId}<`)))?.[0] ?? '';

  before(async () => {
    api = server.api;
    await api.getOrCreate({ user_group_id: GROUP, name: 'Acme', properties: { region: 'eu', tier: 'gold' } });
    await api.getOrCreate({ user_group_id: 'quiet', name: 'Quiet' });
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
    reader = new ConsoleClient(server.url);
    assert.equal(
      (await reader.signIn((await server.services.apiKeys.create({ environment: 'Customer', access: 'read-only' })).key)).status,
      303,
    );
  });

  it('lists the viewers most recently seen first, with last seen and sessions; an empty group says so', async () => {
    for (const id of ['ana', 'bob', 'ana', 'cy']) await mint(GROUP, { id });
    await mint(GROUP);
    await server.services.embedSessions.flushActivity();
    const page = await browser.get(PAGE);
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2 id="viewers-title">Viewers<\/h2>/);
    assert.deepEqual(listed(page), ['cy', 'ana', 'bob']);
    const fromApi = (await api.call('GET', undefined, { path: `/api/user_groups/${GROUP}/viewers` })).json;
    const ana = fromApi.viewers.find((v: { viewer_id: string }) => v.viewer_id === 'ana');
    const row = rowOf(page, 'ana');
    assert.match(row, new RegExp(`<time datetime="${ana.last_seen_at}">`), row);
    assert.match(row, /<td>2<\/td>/, 'two sessions');
    assert.match(row, /data-open-dialog="end-dialog-1"[^>]*>End sessions</);
    assert.doesNotMatch(page.text, /More viewers/);

    const quiet = await browser.get('/console/groups/quiet');
    assert.match(quiet.text, /No viewer yet: sessions minted with a viewer show here\./);
    assert.doesNotMatch(quiet.text, /end-viewer-sessions/);
  });

  it('shows 50 viewers and a link to the next ones', async () => {
    await api.getOrCreate({ user_group_id: 'crowd', name: 'Crowd' });
    for (let i = 0; i < 51; i++) await mint('crowd', { id: `viewer-${String(i).padStart(2, '0')}` });
    await server.services.embedSessions.flushActivity();
    const first = await browser.get('/console/groups/crowd');
    assert.equal(listed(first).length, 50);
    const more = /<a href="([^"]+)">More viewers<\/a>/.exec(first.text);
    assert.ok(more, 'a link to the next viewers');
    const next = await browser.get(unescapeHtml(more[1]!));
    assert.equal(next.status, 200);
    const rest = listed(next);
    assert.equal(rest.length, 1);
    assert.deepEqual(
      [...listed(first), ...rest].sort(),
      Array.from({ length: 51 }, (_, i) => `viewer-${String(i).padStart(2, '0')}`),
    );
    assert.doesNotMatch(next.text, /More viewers/);
    assert.match(next.text, /The most recent viewers/);
    const garbage = await browser.get('/console/groups/crowd?viewers_after=garbage');
    assert.equal(garbage.status, 400);
    assert.match(garbage.headers.get('content-type')!, /^text\/html/);
    assert.match(unescapeHtml(garbage.text), /"after" is not a cursor this list handed out/);
  });

  it("ends a viewer's sessions only once its id is typed exactly: earlier tokens inactive, audited as the session's key", async () => {
    const leaver = await mint(GROUP, { id: 'leaver' });
    const stayer = await mint(GROUP, { id: 'stayer' });
    await server.services.embedSessions.flushActivity();
    const page = await browser.get(PAGE);
    assert.ok(listed(page).includes('leaver'));
    assert.match(page.text, /<input type="hidden" name="viewer_id" value="leaver">/);

    for (const confirm of ['', 'Leaver', 'leaver ', 'stayer']) {
      const refused = await browser.post(END, { _csrf: await browser.csrfToken(PAGE), viewer_id: 'leaver', confirm });
      assert.equal(refused.status, 400, JSON.stringify(confirm));
      const dialog = /<dialog id="end-dialog-\d+" class="end-dialog"[^>]* open>[\s\S]*?<\/dialog>/.exec(refused.text)?.[0] ?? '';
      assert.match(dialog, /value="leaver"/, "the refused viewer's dialog is open again");
      assert.match(unescapeHtml(dialog), /Type the viewer id, "leaver", exactly to end its sessions\./);
      assert.equal(await active(leaver), true, `nothing ended for ${JSON.stringify(confirm)}`);
    }

    const auditBefore = (await server.services.audit.listAuditRecords({ limit: 10_000 })).length;
    const ended = await browser.post(END, { _csrf: await browser.csrfToken(PAGE), viewer_id: 'leaver', confirm: 'leaver' });
    assert.equal(ended.status, 200, ended.text.slice(0, 300));
    assert.match(
      unescapeHtml(ended.text),
      /<p class="notice" role="status">The sessions of viewer "leaver" ended, in every group of the Customer environment; sessions minted from now on work\.<\/p>/,
    );
    assert.equal(await active(leaver), false, 'the earlier token is inactive');
    assert.equal(await active(stayer), true, 'another viewer is untouched');
    assert.equal(await active(await mint(GROUP, { id: 'leaver' })), true, 'a session minted afterwards works');
    const audit = (await server.services.audit.listAuditRecords({ limit: 10_000 })).slice(auditBefore);
    assert.deepEqual(
      audit.map((r) => [r.action, r.viewerId, r.keyId]),
      [['viewer.sessions_revoked', 'leaver', api.keyId]],
    );
  });

  it('refuses a viewer id the API would refuse, as a page, never a 500', async () => {
    for (const viewerId of ['', 'x'.repeat(256), 'tab\there', 'cafe\u0301']) {
      const refused = await browser.post(END, { _csrf: await browser.csrfToken(PAGE), viewer_id: viewerId, confirm: viewerId });
      assert.equal(refused.status, 400, JSON.stringify(viewerId).slice(0, 40));
      assert.match(unescapeHtml(refused.text), /<p id="end_error" class="error" role="alert">"viewer_id" /);
    }
  });

  it('shows a read-only session the list without the control, and refuses its forged post', async () => {
    const token = await mint(GROUP, { id: 'kept' });
    await server.services.embedSessions.flushActivity();
    const page = await reader.get(PAGE);
    assert.equal(page.status, 200);
    assert.ok(listed(page).includes('kept'));
    for (const control of ['end-viewer-sessions', 'End sessions', 'end-dialog']) assert.ok(!page.text.includes(control), `no ${control}`);
    const forged = await reader.post(END, { _csrf: await reader.csrfToken(PAGE), viewer_id: 'kept', confirm: 'kept' });
    assert.equal(forged.status, 403);
    assert.match(forged.text, /read-only/);
    assert.equal(await active(token), true);
  });

  it('previews as a viewer: vid, and props overlaid by the attributes; the viewer is then listed', async () => {
    const answer = await browser.post(`${PAGE}/preview`, {
      _csrf: await browser.csrfToken(PAGE),
      viewer_id: 'previewer',
      attributes: '{"sales_rep": "ana", "tier": null}',
    });
    assert.equal(answer.status, 200);
    const claims = JSON.parse(unescapeHtml(/<pre class="claims">([^<]*)<\/pre>/.exec(answer.text)![1]!));
    assert.equal(claims.vid, 'previewer');
    assert.deepEqual(claims.props, { region: 'eu', sales_rep: 'ana' });
    assert.match(answer.text, /<input id="viewer" name="viewer_id" value="previewer"/, 'the fields keep what was typed');
    await server.services.embedSessions.flushActivity();
    assert.ok(listed(await browser.get(PAGE)).includes('previewer'));
  });

  it("refuses a preview's bad viewer or attributes beside the field, with the API's message, keeping what was typed", async () => {
    const errorOf = (html: string, field: string) =>
      /<p id="([a-z]+)_error" class="error"[^>]*>([^<]*)<\/p>/.exec(html.slice(html.indexOf(`id="${field}"`)));
    const apiMessage = async (viewer: unknown) =>
      (await api.call('POST', { user_group_id: GROUP, viewer }, { path: '/api/embed_sessions' })).json.error.message as string;
    const big = { blob: 'x'.repeat(70_000) };
    const cases = [
      { field: 'viewer', form: { viewer_id: 'x'.repeat(256), attributes: '' }, api: { id: 'x'.repeat(256) } },
      { field: 'viewer', form: { viewer_id: 'cafe\u0301', attributes: '' }, api: { id: 'cafe\u0301' } },
      { field: 'attributes', form: { viewer_id: 'ana', attributes: '[1, 2]' }, api: { id: 'ana', attributes: [1, 2] } },
      { field: 'attributes', form: { viewer_id: 'ana', attributes: JSON.stringify(big) }, api: { id: 'ana', attributes: big } },
      { field: 'attributes', form: { viewer_id: 'ana', attributes: '{"sales_rep": oops}' }, api: undefined },
      { field: 'viewer', form: { viewer_id: '', attributes: '{"sales_rep": "ana"}' }, api: undefined },
    ];
    for (const { field, form, api: body } of cases) {
      const answer = await browser.post(`${PAGE}/preview`, { _csrf: await browser.csrfToken(PAGE), ...form });
      const what = `${field}: ${JSON.stringify(form).slice(0, 60)}`;
      assert.equal(answer.status, 400, what);
      const found = errorOf(answer.text, field);
      assert.equal(found?.[1], field, what);
      const message = unescapeHtml(found![2]!);
      if (body !== undefined) assert.equal(message, await apiMessage(body), what);
      else assert.match(message, field === 'viewer' ? /give its id too/ : /^"viewer\.attributes" is not valid JSON: /, what);
      assert.match(answer.text, new RegExp(`id="${field}"[^>]*aria-invalid="true"`), what);
      assert.doesNotMatch(answer.text, /<pre class="claims">/, `${what}: nothing minted`);
    }
    const kept = await browser.post(`${PAGE}/preview`, {
      _csrf: await browser.csrfToken(PAGE),
      viewer_id: 'ana',
      attributes: '{"a": oops}',
    });
    assert.ok(unescapeHtml(kept.text).includes('>{"a": oops}</textarea>'), 'the textarea holds what was typed');
  });
});
