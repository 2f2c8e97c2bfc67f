import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import { rawRequest, type ApiClient, type RawResponse } from '../../helpers/http-client.js';
import { assertError } from './assert-error.js';

/**
 * Input meant to hurt: prototype poisoning, deep nesting, broken Unicode,
 * numbers JSON would change, keys given twice, wrong content types and unknown methods or paths. Each is
 * refused with a 4xx JSON envelope (or harmlessly accepted), never a 5xx.
 */

let counter = 0;
const freshId = (label: string): string => `${label}-${++counter}`;

/** The raw JSON text of a get-or-create body whose `properties` is the given raw JSON. */
const withRawProperties = (id: string, properties: string): string =>
  `{"user_group_id":${JSON.stringify(id)},"name":"Hostile","properties":${properties}}`;

async function assertNotCreated(api: ApiClient, userGroupId: string): Promise<void> {
  const res = await api.getOrCreate({ user_group_id: userGroupId, name: 'Check' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.new_user_group, true, `"${userGroupId}" was created by a refused call`);
}

function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  assert.equal(probe.polluted, undefined, 'Object.prototype was polluted');
  assert.equal(probe.isAdmin, undefined, 'Object.prototype was polluted');
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
}

function allowOf(res: RawResponse): string[] {
  return String(res.headers.allow ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();
}

describe('hostile input', () => {
  const server = buildForSuite();

  describe('prototype poisoning', () => {
    it('refuses "__proto__" inside properties, pollutes nothing and leaks into no later group', async () => {
      const res = await server.api.call('GET', '{"user_group_id":"p","name":"P","properties":{"__proto__":{"polluted":1}}}');
      const message = assertError(res, 400, 'invalid_request');
      assert.match(message, /__proto__/);
      assertNoPollution();
      await assertNotCreated(server.api, 'p');

      const fresh = await server.api.getOrCreate({ user_group_id: freshId('after-proto'), name: 'Fresh', properties: { plain: true } });
      assert.equal(fresh.status, 200, fresh.text);
      assert.equal(fresh.json.user_group.polluted, undefined);
      assert.deepEqual(fresh.json.user_group.properties, { plain: true });
      assert.equal(fresh.text.includes('polluted'), false);
      assertNoPollution();
    });

    const poisoned: [string, (id: string) => string][] = [
      ['"__proto__" at the top level', (id) => `{"__proto__":{"polluted":1},"user_group_id":${JSON.stringify(id)},"name":"P"}`],
      ['"__proto__" inside mapping', (id) => `{"user_group_id":${JSON.stringify(id)},"name":"P","mapping":{"__proto__":{"polluted":1}}}`],
      ['"__proto__" deep inside properties', (id) => withRawProperties(id, '{"a":{"b":[{"__proto__":{"polluted":1}}]}}')],
      ['"__proto__" written with \\u escapes', (id) => withRawProperties(id, '{"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":1}}')],
      ['"constructor":{"prototype":...} inside properties', (id) => withRawProperties(id, '{"constructor":{"prototype":{"polluted":1}}}')],
      [
        '"constructor":{"prototype":...} at the top level',
        (id) => `{"user_group_id":${JSON.stringify(id)},"name":"P","constructor":{"prototype":{"isAdmin":true}}}`,
      ],
    ];
    for (const [title, body] of poisoned) {
      it(`refuses ${title}`, async () => {
        const id = freshId('proto');
        assertError(await server.api.call('GET', body(id)), 400, 'invalid_request');
        assertNoPollution();
        await assertNotCreated(server.api, id);
      });
    }

    it('refuses "__proto__" in a PUT too, leaving the group unchanged', async () => {
      const id = freshId('proto-put');
      const created = await server.api.getOrCreate({ user_group_id: id, name: 'Before', properties: { keep: 1 } });
      assertError(await server.api.call('PUT', withRawProperties(id, '{"__proto__":{"polluted":1}}')), 400, 'invalid_request');
      assertError(
        await server.api.call('PUT', withRawProperties(id, '{"constructor":{"prototype":{"polluted":1}}}')),
        400,
        'invalid_request',
      );
      assertNoPollution();
      assert.deepEqual((await server.api.getOrCreate({ user_group_id: id })).json.user_group, created.json.user_group);
    });

    it('refuses "__proto__" in the query-string fallback of GET', async () => {
      const id = freshId('proto-query');
      const query = new URLSearchParams({ user_group_id: id, name: 'Q', properties: '{"__proto__":{"polluted":1}}' });
      assertError(await server.api.call('GET', undefined, { path: `/api/user?${query}` }), 400, 'invalid_request');
      assertNoPollution();
      await assertNotCreated(server.api, id);
    });
  });

  describe('deep nesting', () => {
    it('refuses properties nested deeper than 64 levels with 400, not 500', async () => {
      const id = freshId('deep');
      const nested = '{"a":'.repeat(70) + '1' + '}'.repeat(70);
      const message = assertError(await server.api.call('GET', withRawProperties(id, nested)), 400, 'invalid_request');
      assert.match(message, /64 levels/);
      await assertNotCreated(server.api, id);
    });

    it('refuses 100,000 nested arrays with 400, not a stack overflow', async () => {
      const id = freshId('deep-array');
      const nested = '{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
      assertError(await server.api.call('GET', withRawProperties(id, nested)), 400, 'invalid_request');
      assertError(await server.api.call('PUT', withRawProperties(id, nested)), 400, 'invalid_request');
      await assertNotCreated(server.api, id);
    });

    it('refuses unbalanced deep nesting the same way', async () => {
      assertError(await server.api.call('GET', '['.repeat(100_000)), 400, 'invalid_request');
      assertError(await server.api.call('GET', '{"a":'.repeat(10_000)), 400, 'invalid_request');
    });

    it('accepts nesting within the limit (64 levels counted from the body)', async () => {
      const id = freshId('nested-ok');
      // body (1) + properties (2) + 62 more objects = 64 levels.
      const nested = '{"a":'.repeat(63) + '1' + '}'.repeat(63);
      const res = await server.api.call('GET', withRawProperties(id, nested));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.user_group.properties, JSON.parse(nested));
    });

    it('refuses one level more than the limit', async () => {
      const id = freshId('nested-over');
      const nested = '{"a":'.repeat(64) + '1' + '}'.repeat(64);
      assertError(await server.api.call('GET', withRawProperties(id, nested)), 400, 'invalid_request');
      await assertNotCreated(server.api, id);
    });

    it('does not count brackets inside strings as nesting', async () => {
      const id = freshId('brackets');
      const properties = { open: '['.repeat(1000) + '{'.repeat(1000), quoted: '\\"[[[[' + '"{'.repeat(100) };
      const res = await server.api.getOrCreate({ user_group_id: id, name: '{[{[', properties });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.user_group.properties, properties);
    });
  });

  describe('broken Unicode', () => {
    const surrogates: [string, (id: string) => string][] = [
      ['a lone high surrogate \\ud800 in name', (id) => `{"user_group_id":${JSON.stringify(id)},"name":"\\ud800"}`],
      ['a lone low surrogate \\udc00 in name', (id) => `{"user_group_id":${JSON.stringify(id)},"name":"ab\\uDC00cd"}`],
      ['a reversed pair \\udc00\\ud800 in name', (id) => `{"user_group_id":${JSON.stringify(id)},"name":"\\udc00\\ud800"}`],
      ['a lone surrogate in user_group_id', (id) => `{"user_group_id":"${id}\\ud800","name":"N"}`],
      ['a lone surrogate in a properties value', (id) => withRawProperties(id, '{"a":["ok","\\ud800"]}')],
      ['a lone surrogate in a properties key', (id) => withRawProperties(id, '{"\\ud800":1}')],
      ['a lone surrogate in a mapping value', (id) => `{"user_group_id":${JSON.stringify(id)},"name":"N","mapping":{"1":"\\ud800"}}`],
    ];
    for (const [title, body] of surrogates) {
      it(`refuses ${title} with 400`, async () => {
        const id = freshId('surrogate');
        const message = assertError(await server.api.call('GET', body(id)), 400, 'invalid_request');
        assert.match(message, /surrogate/);
        await assertNotCreated(server.api, id);
      });
    }

    it('refuses a lone surrogate in a PUT too', async () => {
      const id = freshId('surrogate-put');
      await server.api.getOrCreate({ user_group_id: id, name: 'Before' });
      assertError(await server.api.call('PUT', `{"user_group_id":${JSON.stringify(id)},"name":"\\ud800"}`), 400, 'invalid_request');
      assert.equal((await server.api.getOrCreate({ user_group_id: id })).json.user_group.name, 'Before');
    });

    it('accepts a proper surrogate pair written as escapes', async () => {
      const id = freshId('pair');
      const res = await server.api.call('GET', `{"user_group_id":${JSON.stringify(id)},"name":"\\ud83d\\ude00 \\u00e9"}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.user_group.name, '😀 é');
    });

    // Decoding with replacement would turn different byte strings into one user_group_id (U+FFFD).
    const invalidUtf8: [string, number[]][] = [
      ['a stray continuation byte', [0x80]],
      ['0xFF', [0xff]],
      ['a truncated two-byte sequence', [0xc3]],
      ['an overlong encoding of "/"', [0xc0, 0xaf]],
      ['an encoded surrogate', [0xed, 0xa0, 0x80]],
      ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ];
    for (const [title, bytes] of invalidUtf8) {
      it(`refuses invalid UTF-8 (${title}) in the body with 400, creating nothing`, async () => {
        const id = freshId('bad-utf8');
        const body = Buffer.concat([Buffer.from(`{"user_group_id":"${id}`), Buffer.from(bytes), Buffer.from('","name":"N"}')]);
        const message = assertError(await server.api.call('GET', body), 400, 'invalid_request');
        assert.match(message, /UTF-8/);
        await assertNotCreated(server.api, `${id}\ufffd`);
      });
    }

    it('refuses invalid UTF-8 in a PUT, leaving the group unchanged', async () => {
      const id = freshId('bad-utf8-put');
      await server.api.getOrCreate({ user_group_id: id, name: 'Before' });
      const body = Buffer.concat([Buffer.from(`{"user_group_id":"${id}","name":"a`), Buffer.from([0xff]), Buffer.from('"}')]);
      assertError(await server.api.call('PUT', body), 400, 'invalid_request');
      assert.equal((await server.api.getOrCreate({ user_group_id: id })).json.user_group.name, 'Before');
    });

    it('refuses invalid UTF-8 percent-encoded in the query string and the path', async () => {
      const id = freshId('bad-utf8-query');
      assertError(await server.api.call('GET', undefined, { path: `/api/user?user_group_id=${id}%FF&name=N` }), 400, 'invalid_request');
      assertError(
        await server.api.call('GET', undefined, { path: `/api/user?user_group_id=${id}&name=N&properties=%7B%22a%22%3A%22%C0%AF%22%7D` }),
        400,
        'invalid_request',
      );
      assertError(await server.api.call('GET', undefined, { path: `/api/user_groups/${id}%FF` }), 400, 'invalid_request');
      await assertNotCreated(server.api, `${id}\ufffd`);
    });

    it('refuses raw (unescaped) control characters inside JSON strings', async () => {
      const id = freshId('raw-control');
      assertError(await server.api.call('GET', `{"user_group_id":"${id}","name":"a\u0000b"}`), 400, 'invalid_request');
      assertError(await server.api.call('GET', `{"user_group_id":"${id}","name":"a\u0001b"}`), 400, 'invalid_request');
      await assertNotCreated(server.api, id);
    });
  });

  describe('numbers JSON would change, and keys given twice', () => {
    const refused: [string, string][] = [
      ['1e400', 'null'],
      ['-1e400', 'null'],
      ['1e-400', '0'],
      ['123456789012345678901234567890', '1.2345678901234568e+29'],
      ['9007199254740993', '9007199254740992'],
      ['0.1234567890123456789', '0.12345678901234568'],
    ];
    for (const [raw, becomes] of refused) {
      it(`refuses properties holding ${raw} with 400 naming the number, where it is and what it would become`, async () => {
        const id = freshId('number');
        const message = assertError(
          await server.api.call('GET', withRawProperties(id, `{"n":1,"list":[2,${raw}]}`)),
          400,
          'invalid_request',
        );
        assert.ok(message.includes(`the number ${raw} at "properties.list.1", which would be stored as ${becomes}`), message);
        await assertNotCreated(server.api, id);
      });
    }

    it('keeps every number a double holds exactly, and -0 as 0 (JSON has one zero)', async () => {
      const id = freshId('number-exact');
      const raw = '{"max":9007199254740991,"min":-9007199254740991,"d":0.1,"e":1.5e300,"z":-0,"f":100.000,"g":2E-5}';
      const res = await server.api.call('GET', withRawProperties(id, raw));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.user_group.properties, {
        max: 9007199254740991,
        min: -9007199254740991,
        d: 0.1,
        e: 1.5e300,
        z: 0,
        f: 100,
        g: 2e-5,
      });
    });

    it('refuses 1e400 as a mapping value or as user_group_id, in a PUT too', async () => {
      const id = freshId('number-mapping');
      assertError(
        await server.api.call('GET', `{"user_group_id":${JSON.stringify(id)},"name":"N","mapping":{"1":1e400}}`),
        400,
        'invalid_request',
      );
      assertError(await server.api.call('GET', '{"user_group_id":1e400,"name":"N"}'), 400, 'invalid_request');
      await assertNotCreated(server.api, id);
      await assertNotCreated(server.api, 'Infinity');
      const message = assertError(
        await server.api.call('PUT', `{"user_group_id":${JSON.stringify(id)},"properties":{"big":18446744073709551616}}`),
        400,
        'invalid_request',
      );
      assert.match(message, /"properties\.big", which would be stored as 18446744073709552000/);
      assert.deepEqual((await server.api.getOrCreate({ user_group_id: id })).json.user_group.properties, undefined);
    });

    const duplicated: [string, string, RegExp][] = [
      ['at the top level', '{"user_group_id":"%ID%","name":"A","name":"B"}', /the key "name" twice; /],
      [
        'inside properties',
        '{"user_group_id":"%ID%","name":"A","properties":{"plan":"gold","tier":1,"plan":"free"}}',
        /the key "plan" twice in the object at "properties"/,
      ],
      [
        'deep in an array',
        '{"user_group_id":"%ID%","name":"A","properties":{"l":[{"a":1},{"a":2,"a":3}]}}',
        /the key "a" twice in the object at "properties\.l\.1"/,
      ],
      [
        'written once with escapes',
        '{"user_group_id":"%ID%","name":"A","properties":{"a":1,"\\u0061":2}}',
        /the key "a" twice in the object at "properties"/,
      ],
      [
        'in the mapping',
        '{"user_group_id":"%ID%","name":"A","mapping":{"40":"1","40":"2"}}',
        /the key "40" twice in the object at "mapping"/,
      ],
    ];
    for (const [where, body, expected] of duplicated) {
      it(`refuses a key given twice ${where} with 400 naming the key and its object`, async () => {
        const id = freshId('duplicate');
        const message = assertError(await server.api.call('GET', body.replace('%ID%', id)), 400, 'invalid_request');
        assert.match(message, expected);
        await assertNotCreated(server.api, id);
      });
    }

    it('accepts the same key in different objects, and strings that look like keys', async () => {
      const id = freshId('not-duplicate');
      const raw = '{"a":{"a":"a"},"l":[{"a":1},{"a":2}],"s":"\\"a\\":1,","b":"a"}';
      const res = await server.api.call('GET', withRawProperties(id, raw));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.user_group.properties, { a: { a: 'a' }, l: [{ a: 1 }, { a: 2 }], s: '"a":1,', b: 'a' });
    });

    it('refuses both in the query string too, naming the parameter', async () => {
      const id = freshId('query');
      const big = await server.api.call('GET', undefined, {
        path: `/api/user?user_group_id=${id}&name=Q&properties=${encodeURIComponent('{"n":1e400}')}`,
      });
      assert.match(
        assertError(big, 400, 'invalid_request'),
        /^"properties" in the query string has the number 1e400 at "n", which would be stored as null/,
      );
      const twice = await server.api.call('GET', undefined, {
        path: `/api/user?user_group_id=${id}&name=Q&mapping=${encodeURIComponent('{"1":"a","1":"b"}')}`,
      });
      assert.match(assertError(twice, 400, 'invalid_request'), /^"mapping" in the query string has the key "1" twice/);
      await assertNotCreated(server.api, id);
    });
  });

  describe('content types', () => {
    const refused: [string, Record<string, string>, string][] = [
      ['text/plain', { 'content-type': 'text/plain' }, '{"user_group_id":"ct","name":"CT"}'],
      ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }, 'user_group_id=ct&name=CT'],
      [
        'multipart/form-data',
        { 'content-type': 'multipart/form-data; boundary=x' },
        '--x\r\nContent-Disposition: form-data; name="user_group_id"\r\n\r\nct\r\n--x--\r\n',
      ],
      ['application/xml', { 'content-type': 'application/xml' }, '<user_group_id>ct</user_group_id>'],
      ['application/jsonx', { 'content-type': 'application/jsonx' }, '{"user_group_id":"ct","name":"CT"}'],
      ['text/json', { 'content-type': 'text/json' }, '{"user_group_id":"ct","name":"CT"}'],
    ];
    for (const method of ['GET', 'PUT', 'POST']) {
      for (const [title, headers, body] of refused) {
        it(`${method} with Content-Type ${title} is 415 unsupported_media_type`, async () => {
          const message = assertError(await server.api.call(method, body, { headers }), 415, 'unsupported_media_type');
          assert.match(message, /application\/json/);
        });
      }

      it(`${method} with a body but no Content-Type is 415`, async () => {
        const res = await rawRequest(server.api.baseUrl, {
          method,
          path: '/api/user',
          headers: { authorization: `Token ${server.api.key}` },
          body: '{"user_group_id":"no-ct","name":"N","current_token":"x"}',
        });
        assertError(res, 415, 'unsupported_media_type');
      });
    }

    it('a refused content type creates nothing', async () => {
      const id = freshId('ct');
      for (const [, headers] of refused) {
        assertError(
          await server.api.call('GET', JSON.stringify({ user_group_id: id, name: 'CT' }), { headers }),
          415,
          'unsupported_media_type',
        );
      }
      const res = await rawRequest(server.api.baseUrl, {
        method: 'GET',
        path: '/api/user',
        headers: { authorization: `Token ${server.api.key}` },
        body: JSON.stringify({ user_group_id: id, name: 'CT' }),
      });
      assertError(res, 415, 'unsupported_media_type');
      await assertNotCreated(server.api, id);
    });

    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json ; charset=utf-8']) {
      it(`accepts Content-Type: ${contentType}`, async () => {
        const id = freshId('charset');
        const res = await server.api.call('GET', JSON.stringify({ user_group_id: id, name: 'Charset é' }), {
          headers: { 'content-type': contentType },
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.user_group.name, 'Charset é');
        const put = await server.api.call('PUT', JSON.stringify({ user_group_id: id, name: 'Put é' }), {
          headers: { 'content-type': contentType },
        });
        assert.equal(put.status, 200, put.text);
        assert.equal(put.json.user_group.name, 'Put é');
      });
    }
  });

  describe('unknown methods and paths', () => {
    // DELETE /api/user exists (deleting a group), so these are the methods the path does not have.
    for (const method of ['PATCH', 'OPTIONS']) {
      it(`${method} /api/user is 405 method_not_allowed with Allow: GET, HEAD, PUT, POST, DELETE`, async () => {
        const res = await server.api.call(method, { user_group_id: 'x', name: 'x' });
        const message = assertError(res, 405, 'method_not_allowed');
        assert.match(message, new RegExp(method));
        assert.equal(res.headers.allow, 'GET, HEAD, PUT, POST, DELETE');
      });

      it(`${method} /api/user without a key or body is 405 too`, async () => {
        const res = await rawRequest(server.url, { method, path: '/api/user' });
        assertError(res, 405, 'method_not_allowed');
        assert.deepEqual(allowOf(res), ['DELETE', 'GET', 'HEAD', 'POST', 'PUT']);
      });
    }

    it('405 ignores the query string', async () => {
      const res = await server.api.call('PATCH', undefined, { path: '/api/user?user_group_id=x' });
      assertError(res, 405, 'method_not_allowed');
      assert.deepEqual(allowOf(res), ['DELETE', 'GET', 'HEAD', 'POST', 'PUT']);
    });

    for (const [method, path] of [
      ['POST', '/healthz'],
      ['PUT', '/healthz'],
      ['DELETE', '/readyz'],
    ] as const) {
      it(`${method} ${path} is 405 with Allow: GET, HEAD`, async () => {
        const res = await rawRequest(server.url, { method, path });
        assertError(res, 405, 'method_not_allowed');
        assert.equal(res.headers.allow, 'GET, HEAD');
      });
    }

    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/nope'],
      ['GET', '/'],
      ['GET', '/api'],
      ['GET', '/api/users'],
      ['GET', '/api/user/acme'],
      ['DELETE', '/api/user/acme'],
      ['GET', '/API/USER'],
      ['GET', '/healthz/extra'],
    ] as const) {
      it(`${method} ${path} is 404 not_found with the JSON envelope`, async () => {
        const res = await server.api.call(method, undefined, { path });
        assertError(res, 404, 'not_found');
        assert.equal(res.headers.allow, undefined);
      });
    }

    it('GET / points to the API, its reference and the console', async () => {
      const message = assertError(await rawRequest(server.url, { method: 'GET', path: '/' }), 404, 'not_found');
      assert.equal(
        message,
        'No route GET /; the API lives at /api/user, its reference at /docs (OpenAPI document: /openapi.json), and the operator console at /console.',
      );
    });

    it('404 needs no key', async () => {
      assertError(await rawRequest(server.url, { method: 'GET', path: '/nope' }), 404, 'not_found');
    });

    for (const path of ['/%', '/%ff', '/api/user%00', '/api/%2e%2e/user', `/${'a'.repeat(8000)}`]) {
      it(`a strange path ${path.slice(0, 20)} is a 4xx JSON envelope, never 5xx`, async () => {
        const res = await rawRequest(server.url, { method: 'GET', path });
        assert.ok(res.status >= 400 && res.status < 500, `${res.status} ${res.text}`);
        assertError(res, res.status, res.status === 404 ? 'not_found' : 'invalid_request');
      });
    }

    for (const path of ['/api/user/', '/healthz/']) {
      it(`GET ${path} does not answer 405 while listing GET as allowed`, async () => {
        const res = await server.api.call('GET', undefined, { path });
        if (res.status === 405) assert.equal(allowOf(res).includes('GET'), false, `405 with Allow: ${res.headers.allow}`);
        assert.ok(res.status < 500, `${res.status} ${res.text}`);
      });
    }
  });
});
