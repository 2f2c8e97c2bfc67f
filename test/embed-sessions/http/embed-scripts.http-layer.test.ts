import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildForSuite } from '../../helpers/build.js';

/** The browser scripts of renewal, as the service serves them and as the package ships them. */
describe('GET /embed/ugs-embed-page.js and /embed/ugs-embed-frame.js', () => {
  const server = buildForSuite({ apiKey: false });
  before(async () => {});

  for (const [path, shipped, defines] of [
    ['/embed/ugs-embed-page.js', 'user-group-service/embed/page.js', 'window.UserGroupEmbed ='],
    ['/embed/ugs-embed-frame.js', 'user-group-service/embed/frame.js', 'window.UserGroupEmbedFrame ='],
  ] as const) {
    it(`${path}: the package's file, as JavaScript, with no key, cacheable, loadable by other origins`, async () => {
      const res = await fetch(`${server.url}${path}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'public, max-age=3600');
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const body = await res.text();
      assert.ok(body.includes(defines));
      assert.equal(body, readFileSync(fileURLToPath(import.meta.resolve(shipped)), 'utf8'));
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[\w-]{22}"$/);
      const again = await fetch(`${server.url}${path}`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
    });
  }

  it('answers 404 for any other script name under /embed/', async () => {
    assert.equal((await fetch(`${server.url}/embed/ugs-embed-other.js`)).status, 404);
  });
});
