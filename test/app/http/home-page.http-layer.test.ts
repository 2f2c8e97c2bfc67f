import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prefersHtml } from '../../../src/platform/http/prefers-html.js';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest } from '../../helpers/http-client.js';
import { assertError } from '../../platform/http/assert-error.js';

/** What chromium and firefox send for a page typed into the address bar. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const NO_ROUTE_GET =
  'No route GET /; the API lives at /api/user, its reference at /docs (OpenAPI document: /openapi.json), and the operator console at /console.';

describe('GET /', () => {
  const server = buildForSuite();
  const get = (headers: Record<string, string>, method = 'GET') =>
    rawRequest(server.url, { method, path: '/', headers, outsideContract: true });

  it('answers a browser with a page linking the console, the API reference and the OpenAPI document, each of which answers', async () => {
    const res = await get({ accept: BROWSER_ACCEPT });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers.vary, 'Accept');
    const links = [...res.text.matchAll(/<a href="([^"#]+)">/g)].map((m) => m[1]);
    for (const path of ['/console', '/docs', '/openapi.json']) assert.ok(links.includes(path), `no link to ${path}: ${links.join(', ')}`);
    for (const path of links) {
      const linked = await rawRequest(server.url, { method: 'GET', path: path!, outsideContract: true });
      assert.ok(linked.status < 400, `${path} answered ${linked.status}`);
    }
    assert.match(res.text, /<title>User group service<\/title>/);
    assert.match(res.text, /href="\/console\/assets\/console\.css\?v=\d+"/, "the console's style sheet");
  });

  it("carries the console's security headers, and the JSON answer keeps the API's", async () => {
    const page = await get({ accept: BROWSER_ACCEPT });
    const console = await rawRequest(server.url, { method: 'GET', path: '/console/sign-in', outsideContract: true });
    for (const header of [
      'content-security-policy',
      'x-frame-options',
      'referrer-policy',
      'cross-origin-opener-policy',
      'cross-origin-resource-policy',
      'x-content-type-options',
    ])
      assert.equal(page.headers[header], console.headers[header], header);
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'.*frame-ancestors 'none'/);
    const json = await get({});
    assert.equal(json.headers['content-security-policy'], undefined);
    assert.equal(json.headers['x-frame-options'], undefined);
  });

  for (const [client, headers] of [
    ['curl (Accept: */*)', { accept: '*/*' }],
    ['no Accept header', {}],
    ['an API client (Accept: application/json)', { accept: 'application/json' }],
    ['JSON before HTML', { accept: 'application/json, text/html;q=0.5' }],
  ] as const) {
    it(`answers ${client} with the JSON 404 naming where things are`, async () => {
      const res = await rawRequest(server.url, { method: 'GET', path: '/', headers });
      assert.equal(assertError(res, 404, 'not_found'), NO_ROUTE_GET);
      assert.equal(res.headers.vary, 'Accept');
    });
  }

  it('is still unknown under other methods (404, never 405), and HEAD answers as GET does', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await rawRequest(server.url, { method, path: '/', headers: { accept: BROWSER_ACCEPT } });
      assertError(res, 404, 'not_found');
      assert.equal(res.headers.allow, undefined);
    }
    assert.equal((await get({ accept: BROWSER_ACCEPT }, 'HEAD')).status, 200);
    assert.equal((await get({ accept: '*/*' }, 'HEAD')).status, 404);
  });

  it('is not in the OpenAPI document: it is no part of the API', async () => {
    const document = (await rawRequest(server.url, { method: 'GET', path: '/openapi.json' })).json as { paths: Record<string, unknown> };
    assert.equal(document.paths['/'], undefined);
  });
});

describe('prefersHtml', () => {
  it('is true when HTML is named before JSON, false for curl, API clients and ties', () => {
    assert.equal(prefersHtml(BROWSER_ACCEPT), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml('application/json;q=0.5, text/html'), true);
    assert.equal(prefersHtml(undefined), false);
    assert.equal(prefersHtml('*/*'), false);
    assert.equal(prefersHtml('application/json'), false);
    assert.equal(prefersHtml('text/html, application/json'), false);
    assert.equal(prefersHtml('text/html;q=0'), false);
    assert.equal(prefersHtml('text/html;q=abc'), false);
  });
});
