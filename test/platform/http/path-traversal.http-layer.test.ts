import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { ConsoleClient } from '../../helpers/console-client.js';
import { rawExchange } from '../../helpers/http-client.js';

/** What the body of a file outside the served folders would show: this package's manifest, swagger-ui's, /etc/passwd, source or templates.
 * */
const LEAKS = [
  /"name": "user-group-service"/,
  /"name": "@fastify\/swagger-ui"/,
  /root:x?:0:0:/,
  /\bexport (async )?function\b/,
  /\bimport .* from '/,
  /<%[=~]? /,
];

/** Refused: a 4xx, or (a console path outside its routes, signed out) the redirect to sign in. */
function assertRefused(answer: { status: number; text: string }, path: string): void {
  const toSignIn = answer.status === 303 && /\r\nlocation: \/console\/sign-in\r\n/i.test(answer.text);
  assert.ok((answer.status >= 400 && answer.status < 500) || toSignIn, `${path}: ${answer.status}`);
  const body = answer.text.slice(answer.text.indexOf('\r\n\r\n'));
  for (const leak of LEAKS) assert.doesNotMatch(body, leak, `${path} leaked a file`);
}

/** The request target sent byte for byte (no client normalises `..` away), and the answer's status and text. */
async function get(url: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const lines = [
    `GET ${target} HTTP/1.1`,
    'Host: x',
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  const text = await rawExchange(url, `${lines.join('\r\n')}\r\n\r\n`);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
}

/** Ways to say "go up" that a path check might miss. */
const UP = ['../', '..%2f', '..%2F', '%2e%2e/', '%2e%2e%2f', '..%5c', '..\\', '..%252f', '....//', '..%c0%af', '..;/', '%u002e%u002e/'];

/** Files outside the served folders, their slashes raw and encoded (a route parameter stops at a raw one). */
const TARGETS = [
  'package.json',
  'etc/passwd',
  'etc%2fpasswd',
  'src%2fhttp%2fapp.ts',
  'dist%2fsrc%2fhttp%2fapp.js',
  'src%2fhttp%2fconsole%2fviews%2flayout.eta',
];

/**
 * Issue 26: path traversal was refused on the static routes (Swagger UI's
 * files under /docs, the console's assets) and on routes taking an id. Each
 * way up is tried at every depth that reaches this package's folder, the
 * filesystem's root and /etc/passwd: every answer is a 4xx, and none shows a
 * file's content.
 */
describe('path traversal', () => {
  const server = buildForSuite();

  it('serves the static files themselves (the control: the folders are real)', async () => {
    const docs = await get(server.url, '/docs/static/swagger-ui.css');
    assert.equal(docs.status, 200);
    assert.match(docs.text, /swagger-ui/);
    assert.equal((await get(server.url, '/console/assets/console.js')).status, 200);
  });

  for (const prefix of ['/docs/static/', '/docs/', '/console/assets/']) {
    it(`refuses every way up from ${prefix}`, async () => {
      const paths = UP.flatMap((up) =>
        TARGETS.flatMap((target) => [1, 2, 3, 4, 5, 6, 7, 12].map((depth) => `${prefix}${up.repeat(depth)}${target}`)),
      );
      // A few at a time: each is a connection of its own.
      for (let i = 0; i < paths.length; i += 16) {
        const batch = paths.slice(i, i + 16);
        const answers = await Promise.all(batch.map((path) => get(server.url, path)));
        answers.forEach((answer, j) => assertRefused(answer, batch[j]!));
      }
    });
  }

  it('refuses an absolute path, a NUL and a file:// URL as the asset name', async () => {
    for (const path of [
      '/console/assets/%2fetc%2fpasswd',
      '/console/assets/console.js%00.png',
      '/docs/static/%2fetc%2fpasswd',
      '/docs/static/index.html%00',
      '/docs/file:%2f%2f%2fetc%2fpasswd',
      '/console/assets/..',
    ]) {
      assertRefused(await get(server.url, path), path);
    }
  });

  it('reads an id holding "../" as that id, never as another route', async () => {
    const auth = { authorization: `Token ${server.api.key}` };
    for (const id of ['..%2f..%2fuser', '..%2F..%2Fapi%2Fuser', '%2e%2e%2fdescendants', '..%2f..%2f..%2fhealthz']) {
      const group = await get(server.url, `/api/user_groups/${id}`, auth);
      assert.equal(group.status, 404, `${id}: ${group.text}`);
      assert.match(group.text, /"code":"not_found"/, id);
      const webhook = await get(server.url, `/api/webhooks/${id}`, auth);
      assert.ok(webhook.status === 404 || webhook.status === 400, `${id}: ${webhook.status}`);
    }
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(server.api.key!)).status, 303);
    for (const id of ['..%2fwebhooks', '..%2F..%2Fconsole%2Fwebhooks', '%2e%2e%2factivity']) {
      const page = await get(server.url, `/console/groups/${id}`, { cookie: browser.cookie! });
      assert.equal(page.status, 404, id);
      assert.match(page.text, /No user group/, `${id}: the group page, not another one`);
    }
    // A group whose id really is "../x" is found by it, and only by it.
    assert.equal((await server.api.getOrCreate({ user_group_id: '../x', name: 'Dots' })).status, 200);
    const dots = await get(server.url, '/api/user_groups/..%2Fx', auth);
    assert.equal(dots.status, 200);
    assert.match(dots.text, /"provided_id":"\.\.\/x"/);
  });
});
