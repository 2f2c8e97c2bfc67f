import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { signedInSessions, type ConsoleClient } from '../../helpers/console-client.js';
import { buildForSuite } from '../../helpers/build.js';

const SECRET = '4d'.repeat(32);
const WRITER = { keyId: 'test', environment: 'Customer' as const, access: 'read-write' as const };

/** The console's Metabase page, on the store UGS_TEST_STORE names: the settings as the API shows them, never the key. */
describe('operator console: Metabase', () => {
  const server = buildForSuite({ apiKey: false });
  let writer: ConsoleClient;
  let reader: ConsoleClient;
  before(async () => {
    ({ writer: writer, reader: reader } = await signedInSessions(server));
  });

  it('says Metabase is not configured, then shows the site, "secret key set" and the lifetime, never the key', async () => {
    const none = await writer.get('/console/metabase');
    assert.equal(none.status, 200, none.text.slice(0, 300));
    assert.match(none.text, /<p id="not-configured">Metabase is not configured for the Customer environment\.<\/p>/);
    assert.match(none.text, /<a href="\/console\/metabase">Metabase<\/a>/, 'in the navigation');
    await server.services.metabase.configure(WRITER, { siteUrl: 'https://mb.example.com', secretKey: SECRET, maxExpiresIn: 300 });
    for (const client of [writer, reader]) {
      const page = await client.get('/console/metabase');
      assert.equal(page.status, 200);
      assert.match(page.text, /<dd id="site-url" class="url">https:\/\/mb\.example\.com<\/dd>/);
      assert.match(page.text, /<dd id="secret-key-set">yes \(never shown\)<\/dd>/);
      assert.match(page.text, /<dd id="max-expires-in">300 s \(a mint that names none: 300 s\)<\/dd>/);
      assert.ok(!page.text.includes(SECRET), 'the key is on no page');
      assert.doesNotMatch(page.text, /<form[^>]*action="\/console\/metabase/, 'no form carries the key');
    }
  });
});
