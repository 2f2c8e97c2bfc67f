import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite, type TestApp } from '../../helpers/build.js';
import { rawRequest, type RawResponse } from '../../helpers/http-client.js';

/** GET with no API key, following redirects on the same host. */
async function fetchPage(server: TestApp, path: string): Promise<{ url: URL; res: RawResponse }> {
  let url = new URL(path, server.url);
  for (let hops = 0; ; hops++) {
    const res = await rawRequest(server.url, { method: 'GET', path: url.pathname + url.search });
    if (res.status < 300 || res.status >= 400) return { url, res };
    assert.ok(hops < 3, `too many redirects from ${path}`);
    url = new URL(String(res.headers.location), url);
    assert.equal(url.host, new URL(server.url).host, `${path} redirects off the host`);
  }
}

/** URLs a page makes the browser load: script src, link href, img src; in CSS, url(). */
function referencedUrls(text: string, css: boolean): string[] {
  const pattern = css ? /url\(\s*['"]?([^'")]+)['"]?\s*\)/g : /<(?:script|link|img)\b[^>]*?\s(?:src|href)\s*=\s*["']([^"']+)["']/gi;
  return [...text.matchAll(pattern)].map((m) => m[1]!.trim());
}

describe('GET /docs', () => {
  const server = buildForSuite();

  it('is an HTML page that loads only assets from this server, each of which answers', async () => {
    const { url: page, res } = await fetchPage(server, '/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const host = new URL(server.url).host;
    const assets = referencedUrls(res.text, false);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(', '));
    const seen = new Set<string>();
    const queue = assets.map((a) => ({ ref: a, base: page }));
    while (queue.length > 0) {
      const { ref, base } = queue.shift()!;
      if (ref.startsWith('data:')) continue;
      const url = new URL(ref, base);
      assert.equal(url.host, host, `${ref} is loaded from another host`);
      if (seen.has(url.pathname)) continue;
      seen.add(url.pathname);
      const asset = await fetchPage(server, url.pathname);
      assert.equal(asset.res.status, 200, `${url.pathname} answers ${asset.res.status}`);
      assert.ok(asset.res.text.length > 0, `${url.pathname} is empty`);
      if (url.pathname.endsWith('.css')) queue.push(...referencedUrls(asset.res.text, true).map((r) => ({ ref: r, base: url })));
    }
    assert.ok(seen.size >= 4, [...seen].join(', '));
  });

  it('loads the document from this server and asks no outside validator', async () => {
    const { url: page, res } = await fetchPage(server, '/docs');
    const initializer = referencedUrls(res.text, false).find((a) => a.endsWith('swagger-initializer.js'));
    assert.ok(initializer);
    const script = (await fetchPage(server, new URL(initializer, page).pathname)).res.text;
    assert.match(script, /url: resolveUrl\('\.\/json'\)/);
    assert.match(script, /validatorUrl: null/);
    const spec = await fetchPage(server, '/docs/json');
    assert.equal(spec.res.status, 200);
    assert.deepEqual(spec.res.json, (await fetchPage(server, '/openapi.json')).res.json);
  });

  it('leaves the JSON 404 and 405 answers as they were', async () => {
    const unknown = await rawRequest(server.url, { method: 'GET', path: '/docs/static/no-such-file.js' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.code, 'not_found');
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/no-such-path' })).json.error.code, 'not_found');
    for (const path of ['/openapi.json', '/docs']) {
      const wrong = await rawRequest(server.url, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: {} });
      assert.equal(wrong.status, 405, path);
      assert.equal(wrong.json.error.code, 'method_not_allowed');
      assert.equal(wrong.headers.allow, 'GET, HEAD');
    }
    // The API still wants its key.
    assert.equal((await rawRequest(server.url, { method: 'GET', path: '/api/user' })).status, 401);
  });
});
