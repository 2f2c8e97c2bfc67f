import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ConsoleClient, type ConsoleAnswer } from '../../helpers/console-client.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { buildForSuite } from '../../helpers/build.js';

/** Markup that runs if a page puts it in unescaped: as an element, or breaking out of a double- or single-quoted attribute. */
const HOSTILE = `<script>alert(1)</script><img src=x onerror=alert(2)><svg onload=alert(3)>" autofocus onfocus="alert(4)' onmouseover='alert(5)`;
const LIVE = [/<script>alert/i, /<img src=x/i, /<svg onload/i, /" autofocus onfocus="/, /' onmouseover='/];
/** How the payload's start reads once escaped: shown, as text. */
const SHOWN = '&lt;script&gt;alert(1)&lt;/script&gt;';

/** Ids hold markup too, kept short: an id and its percent-encoding fit the router's parameter length. */
const ID_HOSTILE = `<script>alert(1)</script>"'`;
const PARENT = `p${ID_HOSTILE}`;
const CHILD = `c${ID_HOSTILE}`;
const path = (id: string) => `/console/groups/${encodeURIComponent(id)}`;
/** A viewer id is the customer's too (issue 29): markup, marked so that its own escaped form is looked for. */
const VIEWER = `v${HOSTILE}`;
const VIEWER_SHOWN = `v${SHOWN}`;

/**
 * Issue 26: console XSS in every field was refused. Every value a group or a
 * webhook holds, every value a page echoes back (search boxes, refused form
 * input, error messages) carries markup that would run, and each page that
 * shows it shows it as text.
 */
describe('operator console: hostile markup in every field is shown as text', () => {
  const server = buildForSuite({ webhooks: { allowPrivateTargets: true } });
  let api: ApiClient;
  let browser: ConsoleClient;
  let webhookId: string;
  before(async () => {
    api = server.api;
    const fields = { name: HOSTILE, mapping: { [HOSTILE]: HOSTILE }, properties: { [HOSTILE]: HOSTILE, nested: [{ [HOSTILE]: HOSTILE }] } };
    assert.equal((await api.getOrCreate({ user_group_id: PARENT, ...fields })).status, 200);
    assert.equal((await api.getOrCreate({ user_group_id: CHILD, parent_user_group_id: PARENT, ...fields })).status, 200);
    assert.equal(
      (await api.update({ user_group_id: CHILD, name: `${HOSTILE} renamed` })).status,
      200,
      'an update, so the activity page lists changed fields',
    );
    const hook = await api.call(
      'POST',
      { url: `https://127.0.0.1:9/hooks?q=${encodeURIComponent(HOSTILE)}`, description: HOSTILE },
      { path: '/api/webhooks' },
    );
    assert.equal(hook.status, 201, hook.text);
    webhookId = hook.json.webhook.id;
    const minted = await api.call(
      'POST',
      { user_group_id: CHILD, viewer: { id: VIEWER, attributes: { [HOSTILE]: HOSTILE } } },
      { path: '/api/embed_sessions' },
    );
    assert.equal(minted.status, 201, minted.text);
    await server.services.embedSessions.flushActivity();
    browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(api.key!)).status, 303);
  });

  function assertInert(answer: ConsoleAnswer, where: string, shown = SHOWN): void {
    assert.ok(answer.status < 500, `${where}: ${answer.status}`);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/, where);
    for (const live of LIVE) assert.doesNotMatch(answer.text, live, `${where}: live markup`);
    assert.ok(answer.text.includes(shown), `${where}: the hostile value is not on the page, so this check proves nothing`);
  }

  it('the groups list: ids, names and parents; and the search box echoing a prefix', async () => {
    assertInert(await browser.get('/console/groups'), 'the list');
    assertInert(await browser.get(`/console/groups?prefix=${encodeURIComponent(HOSTILE)}`), 'a search with no match');
    assertInert(await browser.get(`/console/groups?prefix=${encodeURIComponent(PARENT.slice(0, 20))}`), 'a search with a match');
  });

  it("a group's page: its id, name, mapping and properties (own and effective), its ancestors and children, and the edit form", async () => {
    assertInert(await browser.get(path(CHILD)), "the child's page (ancestors)");
    assertInert(await browser.get(path(PARENT)), "the parent's page (children)");
  });

  it("what the edit form echoes when refusing it, and the preview's claims", async () => {
    const token = await browser.csrfToken(path(CHILD));
    const refused = [
      { name: HOSTILE, mapping: `{"40": ${JSON.stringify(HOSTILE)}, oops}`, properties: '' },
      { name: HOSTILE, mapping: '', properties: `${HOSTILE}` },
      { name: HOSTILE, mapping: JSON.stringify({ [HOSTILE]: { nested: HOSTILE } }), properties: '' },
      { name: `${HOSTILE}${'x'.repeat(255)}`, mapping: '', properties: '' },
    ];
    for (const fields of refused) {
      const answer = await browser.post(`${path(CHILD)}/edit`, { _csrf: token, ...fields });
      assert.equal(answer.status, 400, JSON.stringify(fields).slice(0, 80));
      assertInert(answer, `refused edit ${JSON.stringify(fields).slice(0, 60)}`);
    }
    const preview = await browser.post(`${path(CHILD)}/preview`, { _csrf: token });
    assert.equal(preview.status, 200);
    assertInert(preview, 'the preview');
  });

  it("a group's viewers: the list, the End sessions dialog, its refusal and its notice; a preview as that viewer", async () => {
    assertInert(await browser.get(path(CHILD)), 'the viewers list', VIEWER_SHOWN);
    const token = await browser.csrfToken(path(CHILD));
    const refused = await browser.post(`${path(CHILD)}/end-viewer-sessions`, { _csrf: token, viewer_id: VIEWER, confirm: HOSTILE });
    assert.equal(refused.status, 400);
    assertInert(refused, 'a refused End sessions', VIEWER_SHOWN);
    const ended = await browser.post(`${path(CHILD)}/end-viewer-sessions`, { _csrf: token, viewer_id: VIEWER, confirm: VIEWER });
    assert.equal(ended.status, 200);
    assertInert(ended, 'the notice of ended sessions', `The sessions of viewer &quot;${VIEWER_SHOWN}`);
    const preview = await browser.post(`${path(CHILD)}/preview`, {
      _csrf: token,
      viewer_id: VIEWER,
      attributes: JSON.stringify({ [HOSTILE]: HOSTILE }),
    });
    assert.equal(preview.status, 200);
    assertInert(preview, 'a preview as the viewer', VIEWER_SHOWN);
    const refusedPreview = await browser.post(`${path(CHILD)}/preview`, { _csrf: token, viewer_id: VIEWER, attributes: HOSTILE });
    assert.equal(refusedPreview.status, 400);
    assertInert(refusedPreview, 'a refused preview echoing the attributes', VIEWER_SHOWN);
  });

  it('the activity page: audit records and events naming the groups, and its filter box', async () => {
    assertInert(await browser.get('/console/activity'), 'activity');
    assertInert(await browser.get(`/console/activity?group=${encodeURIComponent(CHILD)}`), 'activity of one group');
  });

  it("the webhooks list and a webhook's page: its URL and description", async () => {
    const encoded = encodeURIComponent(HOSTILE).slice(0, 20);
    for (const page of ['/console/webhooks', `/console/webhooks/${webhookId}`]) {
      const answer = await browser.get(page);
      assertInert(answer, page);
      assert.ok(answer.text.includes(encoded), `${page}: the URL is shown as stored`);
    }
  });

  it('what the add-webhook form echoes when refusing it', async () => {
    const token = await browser.csrfToken('/console/webhooks');
    const refused: Record<string, string>[] = [
      { url: HOSTILE, events_all: '1', description: HOSTILE },
      { url: `https://127.0.0.1:9/${HOSTILE}`, description: HOSTILE },
      { url: `javascript:alert(1)//${HOSTILE}`, events_all: '1' },
      { url: 'https://127.0.0.1:9/ok', events_all: '1', description: `${HOSTILE}${'x'.repeat(255)}` },
    ];
    for (const fields of refused) {
      const answer = await browser.post('/console/webhooks', { _csrf: token, ...fields });
      assert.equal(answer.status, 400, `${JSON.stringify(fields).slice(0, 80)}: ${answer.text.slice(0, 200)}`);
      assertInert(answer, `refused webhook ${JSON.stringify(fields).slice(0, 60)}`);
    }
  });

  it('error pages that name what was asked for: an unknown group, an unknown webhook', async () => {
    const unknown = await browser.get(path(`nobody${ID_HOSTILE}`));
    assert.equal(unknown.status, 404);
    assertInert(unknown, 'an unknown group');
    const hook = await browser.get(`/console/webhooks/${encodeURIComponent(`wh_${ID_HOSTILE}`)}`);
    assert.ok(hook.status === 404 || hook.status === 400, String(hook.status));
    for (const live of LIVE) assert.doesNotMatch(hook.text, live, 'an unknown webhook');
  });
});
