import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest, type RawResponse } from '../../helpers/http-client.js';
import { assertError } from './assert-error.js';

/** Headers that differ between any two answers, whatever the method. */
const PER_ANSWER = new Set(['date', 'x-request-id']);

function comparableHeaders(res: RawResponse, ignore: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => !PER_ANSWER.has(name) && !ignore.includes(name)));
}

/** HEAD answers what GET answers, status and headers, without a body; load balancers probe with it. */
describe('HEAD', () => {
  const server = buildForSuite();
  before(async () => {
    assert.equal((await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);
  });

  // [path, needs a key, headers whose value may change between two calls]
  const routes: [string, boolean, string[]][] = [
    ['/healthz', false, []],
    ['/readyz', false, []],
    ['/metrics', false, ['content-length']],
    ['/openapi.json', false, []],
    ['/docs', false, []],
    ['/docs/', false, []],
    ['/api/user_groups', true, []],
    ['/api/user_groups?limit=1&q=ac', true, []],
    ['/api/user_groups/acme', true, []],
    ['/api/user_groups/missing', true, []],
    ['/api/user?user_group_id=acme', true, []],
    ['/api/user?user_group_id=acme&name=Other', true, []],
    ['/api/user', true, []],
    ['/api/user?user_group_id=acme&mapping=%5B1%5D', true, []],
    ['/api/user_groups?limit=0', true, []],
  ];
  for (const [path, keyed, varying] of routes) {
    it(`HEAD ${path} answers GET's status and headers, without a body`, async () => {
      const headers: Record<string, string> = keyed ? { authorization: `Token ${server.api.key}` } : {};
      const get = await rawRequest(server.url, { method: 'GET', path, headers });
      const head = await rawRequest(server.url, { method: 'HEAD', path, headers });
      assert.equal(head.status, get.status, `GET ${get.status} ${get.text.slice(0, 200)}`);
      assert.notEqual(head.status, 405);
      assert.equal(head.text, '');
      assert.deepEqual(comparableHeaders(head, varying), comparableHeaders(get, varying));
      assert.ok(head.headers['x-request-id']);
    });
  }

  it('HEAD /api/user never creates: 404 for a group that does not exist, and it still does not', async () => {
    const head = await server.api.call('HEAD', undefined, { path: '/api/user?user_group_id=not-yet&name=Not%20yet' });
    assert.equal(head.status, 404);
    assert.equal(head.text, '');
    assert.match(String(head.headers['content-type']), /^application\/json/);
    assertError(await server.api.call('GET', undefined, { path: '/api/user_groups/not-yet' }), 404, 'not_found');
    const listed = await server.api.call('GET', undefined, { path: '/api/user_groups' });
    assert.deepEqual(
      listed.json.user_groups.map((g: { provided_id: string }) => g.provided_id),
      ['acme'],
    );
  });

  it('HEAD /api/user needs a key like GET', async () => {
    const res = await rawRequest(server.url, { method: 'HEAD', path: '/api/user?user_group_id=acme' });
    assert.equal(res.status, 401);
    assert.equal(res.text, '');
  });

  it('HEAD /api/user with a read-only key reads an existing group and creates none', async () => {
    const readOnly = await server.client({ access: 'read-only' });
    assert.equal((await readOnly.call('HEAD', undefined, { path: '/api/user?user_group_id=acme' })).status, 200);
    assert.equal((await readOnly.call('HEAD', undefined, { path: '/api/user?user_group_id=absent' })).status, 404);
  });
});
