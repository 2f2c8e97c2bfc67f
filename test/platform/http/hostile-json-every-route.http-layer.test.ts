import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { bindProperties, type BindableClaims } from 'user-group-service/embed';
import { buildForSuite } from '../../helpers/build.js';
import { ConsoleClient } from '../../helpers/console-client.js';
import { assertError } from './assert-error.js';

const READER = { keyId: 'test', environment: 'Customer' as const, access: 'read-only' as const };

function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const name of ['polluted', 'isAdmin']) assert.equal(probe[name], undefined, `Object.prototype.${name} was set`);
}

/**
 * Issue 26: deep JSON and prototype keys were refused. hostile-input.http-layer.test.ts
 * pins them on /api/user (GET and PUT); here every other route that reads a
 * JSON body, the console's JSON fields and its form field names. Also what
 * the code decides for `constructor` and `prototype` on their own: they are
 * ordinary keys, stored and handed out as such, inert.
 */
describe('deep JSON and prototype keys on every route', () => {
  const server = buildForSuite({ webhooks: { allowPrivateTargets: true } });
  let webhookId: string;
  before(async () => {
    assert.equal((await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } })).status, 200);
    const hook = await server.api.call('POST', { url: 'https://127.0.0.1:9/hooks' }, { path: '/api/webhooks' });
    assert.equal(hook.status, 201, hook.text);
    webhookId = hook.json.webhook.id;
  });

  const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  /** Each route that reads a JSON body, and a valid body for it with room for one more member (raw JSON, without its closing brace). */
  const routes = (): [string, string, string][] => [
    ['POST', '/api/user', '{"current_token":"ugt_x"'],
    ['DELETE', '/api/user', '{"user_group_id":"acme"'],
    ['POST', '/api/embed_sessions', '{"user_group_id":"acme"'],
    ['POST', '/api/embed_sessions/introspect', '{"token":"x"'],
    ['POST', '/api/webhooks', '{"url":"https://127.0.0.1:9/other"'],
    ['POST', `/api/webhooks/${webhookId}/redeliver`, '{"event_id":"evt_x"'],
    ['POST', `/api/webhooks/${webhookId}/rotate_secret`, '{"x":1'],
    ['POST', `/api/webhooks/${webhookId}/enable`, '{"x":1'],
  ];

  it('refuses nesting deeper than 64 levels on every route with 400, 100,000 brackets deep included', async () => {
    for (const [method, path, body] of routes()) {
      for (const nested of [deep(70), '['.repeat(100_000) + ']'.repeat(100_000)]) {
        const message = assertError(await server.api.call(method, `${body},"nested":${nested}}`, { path }), 400, 'invalid_request');
        assert.match(message, /nests deeper than 64 levels/, `${method} ${path}`);
      }
    }
  });

  it('refuses "__proto__" and "constructor":{"prototype":…} on every route with 400, polluting nothing', async () => {
    const hooks = (await server.services.webhooks.list(READER)).length;
    for (const [method, path, body] of routes()) {
      for (const poison of [
        '"__proto__":{"polluted":1}',
        '"\\u005f_proto__":{"polluted":1}',
        '"constructor":{"prototype":{"isAdmin":true}}',
        '"x":[{"__proto__":{"polluted":1}}]',
      ]) {
        const message = assertError(await server.api.call(method, `${body},${poison}}`, { path }), 400, 'invalid_request');
        assert.match(message, /"__proto__" or "constructor.prototype"/, `${method} ${path} ${poison}`);
      }
    }
    assertNoPollution();
    assert.equal((await server.services.webhooks.list(READER)).length, hooks, 'no webhook was registered');
    assert.equal((await server.api.getOrCreate({ user_group_id: 'acme' })).json.new_user_group, false, 'acme was not deleted');
  });

  it('stores "constructor" and "prototype" on their own as ordinary keys: returned as given, minted as given, bound only as own properties', async () => {
    const properties = { constructor: 'c', prototype: { polluted: 1 }, toString: 'ts', hasOwnProperty: 'h' };
    const mapping = { constructor: 'db-c', prototype: 'db-p' };
    const created = await server.api.getOrCreate({ user_group_id: 'inert', name: 'Inert', properties, mapping });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.json.user_group.properties, properties);
    const read = await server.api.call('GET', undefined, { path: '/api/user_groups/inert' });
    assert.deepEqual(read.json.user_group.properties, properties);
    assert.deepEqual(read.json.user_group.mapping, mapping);
    const minted = await server.api.call('POST', { user_group_id: 'inert' }, { path: '/api/embed_sessions' });
    const claims = decodeJwt(minted.json.embed_session.token) as unknown as BindableClaims & { map: unknown };
    assert.deepEqual([claims.props, claims.map], [properties, mapping]);
    assert.deepEqual(bindProperties('SELECT {{ constructor }}, {{ toString }}', claims, 'postgres').values, ['c', 'ts']);
    assertNoPollution();
  });

  it("refuses the same in the console's mapping and properties fields, beside the field, changing nothing", async () => {
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(server.api.key!)).status, 303);
    const before = (await server.api.getOrCreate({ user_group_id: 'acme' })).json.user_group;
    for (const field of ['mapping', 'properties'] as const) {
      for (const [json, why] of [
        ['{"__proto__":{"polluted":1}}', /"__proto__" or "constructor.prototype"/],
        ['{"constructor":{"prototype":{"isAdmin":true}}}', /"__proto__" or "constructor.prototype"/],
        [deep(70), /nests deeper than 64 levels/],
      ] as const) {
        const answer = await browser.post('/console/groups/acme/edit', {
          _csrf: await browser.csrfToken('/console/groups/acme'),
          name: 'Acme',
          mapping: '',
          properties: '',
          [field]: json,
        });
        assert.equal(answer.status, 400, `${field}: ${json.slice(0, 40)}`);
        const error = new RegExp(`<p id="${field}_error" class="error"[^>]*>([^<]*)</p>`).exec(answer.text)?.[1] ?? '';
        assert.match(error.replace(/&#34;|&quot;/g, '"'), why, field);
      }
    }
    assertNoPollution();
    assert.deepEqual((await server.api.getOrCreate({ user_group_id: 'acme' })).json.user_group, before);
  });

  it('reads console form fields named __proto__, constructor or prototype as nothing: no pollution, and the form works as without them', async () => {
    const browser = new ConsoleClient(server.url);
    assert.equal((await browser.signIn(server.api.key!)).status, 303);
    const body = new URLSearchParams([
      ['__proto__', 'x'],
      ['__proto__[polluted]', '1'],
      ['constructor[prototype][isAdmin]', '1'],
      ['constructor', 'x'],
      ['prototype', 'x'],
      ['_csrf', await browser.csrfToken('/console/groups/acme')],
      ['name', 'Acme Renamed'],
      ['mapping', ''],
      ['properties', '{"region": "eu"}'],
    ]).toString();
    const answer = await fetch(`${server.url}/console/groups/acme/edit`, {
      method: 'POST',
      body,
      redirect: 'manual',
      headers: { cookie: browser.cookie!, origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(answer.status, 303, await answer.text());
    assertNoPollution();
    assert.equal((await server.api.getOrCreate({ user_group_id: 'acme' })).json.user_group.name, 'Acme Renamed');
  });
});
