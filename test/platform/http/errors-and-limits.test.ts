import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildForSuite } from '../../helpers/build.js';
import type { ApiClient } from '../../helpers/http-client.js';
import { assertError } from './assert-error.js';

/**
 * Limits and wrong types on the wire, through real HTTP: every refusal is a
 * 4xx with the JSON envelope and a message naming the field, and a refused
 * call stores nothing.
 */

const MIB = 1024 * 1024;
const PROPERTIES_MAX_BYTES = 64 * 1024;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

let counter = 0;
/** A fresh, valid user_group_id per use so tests never see each other's groups. */
const freshId = (label: string): string => `${label}-${++counter}`;

/** `properties` whose JSON serialization is exactly `bytes` bytes long (ASCII only). */
function propertiesOfSize(bytes: number): Record<string, string> {
  const overhead = JSON.stringify({ blob: '' }).length;
  const properties = { blob: 'x'.repeat(bytes - overhead) };
  assert.equal(Buffer.byteLength(JSON.stringify(properties)), bytes);
  return properties;
}

function mappingWith(entries: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: entries }, (_, i) => [String(i), `source-${i}`]));
}

/** A JSON body of exactly `bytes` bytes: a valid request padded with an unknown field. */
function bodyOfSize(fields: Record<string, unknown>, bytes: number): string {
  const overhead = JSON.stringify({ ...fields, padding: '' }).length;
  const body = JSON.stringify({ ...fields, padding: 'p'.repeat(bytes - overhead) });
  assert.equal(Buffer.byteLength(body), bytes);
  return body;
}

/** The refused call stored nothing: creating the same id now really creates it. */
async function assertNotCreated(api: ApiClient, userGroupId: string): Promise<void> {
  const res = await api.getOrCreate({ user_group_id: userGroupId, name: 'Check' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.new_user_group, true, `"${userGroupId}" was created by a refused call`);
}

interface BadCase {
  title: string;
  /** The body for a group id that is valid and free (GET) or existing (PUT). */
  body: (id: string) => unknown;
  /** What the error message must say: at least the field's name. */
  message: RegExp;
  /** An id the refused GET must not have created, when not the given one (e.g. "123" for 123). */
  notCreated?: string | null;
}

const CONTROL_CHARACTERS = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f'];
const show = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Refusals shared by GET (get or create) and PUT (update): both take user_group_id, name, mapping, properties. */
const SHARED_BAD_CASES: BadCase[] = [
  { title: 'user_group_id missing', body: () => ({ name: 'N' }), message: /"user_group_id" is required/, notCreated: null },
  { title: 'user_group_id empty', body: () => ({ user_group_id: '', name: 'N' }), message: /"user_group_id"/, notCreated: null },
  {
    title: 'user_group_id of 256 characters',
    body: () => ({ user_group_id: 'i'.repeat(256), name: 'N' }),
    message: /"user_group_id".*255/,
    notCreated: 'i'.repeat(255),
  },
  {
    title: 'user_group_id of 256 multi-byte characters',
    body: () => ({ user_group_id: 'é'.repeat(256), name: 'N' }),
    message: /"user_group_id"/,
    notCreated: 'é'.repeat(255),
  },
  {
    title: 'user_group_id as the number 123 (no coercion)',
    body: () => ({ user_group_id: 123, name: 'N' }),
    message: /"user_group_id".*string/,
    notCreated: '123',
  },
  { title: 'user_group_id as true', body: () => ({ user_group_id: true, name: 'N' }), message: /"user_group_id"/, notCreated: 'true' },
  { title: 'user_group_id as null', body: () => ({ user_group_id: null, name: 'N' }), message: /"user_group_id"/, notCreated: 'null' },
  { title: 'user_group_id as an array', body: () => ({ user_group_id: ['a'], name: 'N' }), message: /"user_group_id"/, notCreated: 'a' },
  {
    title: 'user_group_id as an object',
    body: () => ({ user_group_id: { id: 'a' }, name: 'N' }),
    message: /"user_group_id"/,
    notCreated: null,
  },
  ...CONTROL_CHARACTERS.map((c): BadCase => ({
    title: `user_group_id with control character ${show(c)}`,
    body: (id) => ({ user_group_id: `${id}${c}x`, name: 'N' }),
    message: /"user_group_id" must not contain control characters/,
    notCreated: null,
  })),
  { title: 'name empty', body: (id) => ({ user_group_id: id, name: '' }), message: /"name"/ },
  { title: 'name of 256 characters', body: (id) => ({ user_group_id: id, name: 'n'.repeat(256) }), message: /"name".*255/ },
  { title: 'name of 256 multi-byte characters', body: (id) => ({ user_group_id: id, name: 'é'.repeat(256) }), message: /"name"/ },
  { title: 'name of 256 emoji', body: (id) => ({ user_group_id: id, name: '😀'.repeat(256) }), message: /"name"/ },
  { title: 'name as a number', body: (id) => ({ user_group_id: id, name: 42 }), message: /"name".*string/ },
  { title: 'name as null', body: (id) => ({ user_group_id: id, name: null }), message: /"name"/ },
  { title: 'name as an object', body: (id) => ({ user_group_id: id, name: { first: 'N' } }), message: /"name"/ },
  ...CONTROL_CHARACTERS.map((c): BadCase => ({
    title: `name with control character ${show(c)}`,
    body: (id) => ({ user_group_id: id, name: `Na${c}me` }),
    message: /"name" must not contain control characters/,
  })),
  {
    title: 'mapping with 101 entries',
    body: (id) => ({ user_group_id: id, name: 'N', mapping: mappingWith(101) }),
    message: /"mapping".*100/,
  },
  { title: 'mapping with an empty key', body: (id) => ({ user_group_id: id, name: 'N', mapping: { '': 'x' } }), message: /"mapping"/ },
  {
    title: 'mapping with a 256-character key',
    body: (id) => ({ user_group_id: id, name: 'N', mapping: { ['k'.repeat(256)]: 'x' } }),
    message: /"mapping"/,
  },
  {
    title: 'mapping with a 256-character value',
    body: (id) => ({ user_group_id: id, name: 'N', mapping: { '40': 'v'.repeat(256) } }),
    message: /"mapping\.40"/,
  },
  { title: 'mapping value 1.5', body: (id) => ({ user_group_id: id, name: 'N', mapping: { '40': 1.5 } }), message: /"mapping\.40"/ },
  { title: 'mapping value true', body: (id) => ({ user_group_id: id, name: 'N', mapping: { '40': true } }), message: /"mapping\.40"/ },
  { title: 'mapping value null', body: (id) => ({ user_group_id: id, name: 'N', mapping: { '40': null } }), message: /"mapping\.40"/ },
  {
    title: 'mapping value an object',
    body: (id) => ({ user_group_id: id, name: 'N', mapping: { '40': { id: 1 } } }),
    message: /"mapping\.40"/,
  },
  { title: 'mapping value an array', body: (id) => ({ user_group_id: id, name: 'N', mapping: { '40': [1] } }), message: /"mapping\.40"/ },
  {
    title: 'mapping value above the safe integer range',
    body: (id) => `{"user_group_id":${JSON.stringify(id)},"name":"N","mapping":{"40":9007199254740992}}`,
    message: /"mapping\.40"/,
  },
  {
    title: 'mapping value below the safe integer range',
    body: (id) => `{"user_group_id":${JSON.stringify(id)},"name":"N","mapping":{"40":-9007199254740992}}`,
    message: /"mapping\.40"/,
  },
  { title: 'mapping as an array', body: (id) => ({ user_group_id: id, name: 'N', mapping: [['40', '213']] }), message: /"mapping"/ },
  { title: 'mapping as a string', body: (id) => ({ user_group_id: id, name: 'N', mapping: '{"40":"213"}' }), message: /"mapping"/ },
  { title: 'properties as an array', body: (id) => ({ user_group_id: id, name: 'N', properties: [1, 2] }), message: /"properties"/ },
  { title: 'properties as a string', body: (id) => ({ user_group_id: id, name: 'N', properties: '{"a":1}' }), message: /"properties"/ },
  { title: 'properties as a number', body: (id) => ({ user_group_id: id, name: 'N', properties: 7 }), message: /"properties"/ },
  { title: 'properties as a boolean', body: (id) => ({ user_group_id: id, name: 'N', properties: true }), message: /"properties"/ },
  {
    title: 'properties one byte over 64 KiB serialized',
    body: (id) => ({ user_group_id: id, name: 'N', properties: propertiesOfSize(PROPERTIES_MAX_BYTES + 1) }),
    message: /"properties".*65537 bytes.*65536/,
  },
];

/** Bodies that are JSON but not an object, or not JSON at all (sent raw). */
const NOT_AN_OBJECT = ['[]', '[{"user_group_id":"a","name":"A"}]', '"x"', '42', 'true'];
const NOT_JSON = ['{"a":', '{user_group_id: "a"}', "{'user_group_id':'a'}", '{"user_group_id":"a",}', 'x', '{"a":1}}'];

describe('wire errors and limits', () => {
  const server = buildForSuite();

  describe('GET /api/user refuses bad input with 400 invalid_request and creates nothing', () => {
    for (const bad of SHARED_BAD_CASES) {
      it(bad.title, async () => {
        const id = freshId('get-bad');
        const res = await server.api.getOrCreate(bad.body(id));
        const message = assertError(res, 400, 'invalid_request');
        assert.match(message, bad.message);
        const notCreated = bad.notCreated === undefined ? id : bad.notCreated;
        if (notCreated !== null) await assertNotCreated(server.api, notCreated);
      });
    }

    it('properties: null (only PUT may clear properties)', async () => {
      const id = freshId('get-null-props');
      const message = assertError(await server.api.getOrCreate({ user_group_id: id, name: 'N', properties: null }), 400, 'invalid_request');
      assert.match(message, /"properties"/);
      await assertNotCreated(server.api, id);
    });

    it('refuses bad fields even when the group exists, leaving it unchanged', async () => {
      const id = freshId('get-existing');
      const created = await server.api.getOrCreate({ user_group_id: id, name: 'Existing', properties: { keep: true } });
      assert.equal(created.status, 200);
      assertError(await server.api.getOrCreate({ user_group_id: id, name: 'n'.repeat(256) }), 400, 'invalid_request');
      assertError(await server.api.getOrCreate({ user_group_id: id, mapping: { '1': 1.5 } }), 400, 'invalid_request');
      assertError(
        await server.api.getOrCreate({ user_group_id: id, properties: propertiesOfSize(PROPERTIES_MAX_BYTES + 1) }),
        400,
        'invalid_request',
      );
      const again = await server.api.getOrCreate({ user_group_id: id });
      assert.equal(again.json.new_user_group, false);
      assert.deepEqual(again.json.user_group, created.json.user_group);
    });
  });

  describe('GET /api/user accepts values at the limits', () => {
    const accepted: { title: string; body: (id: string) => Record<string, unknown> }[] = [
      {
        title: 'user_group_id and name of 255 characters',
        body: (id) => ({ user_group_id: `${id}-`.padEnd(255, 'i'), name: 'n'.repeat(255) }),
      },
      { title: 'user_group_id and name of 255 "é"', body: (id) => ({ user_group_id: `${id}-`.padEnd(255, 'é'), name: 'é'.repeat(255) }) },
      {
        title: 'name of 255 emoji (counted in characters, not UTF-16 units)',
        body: (id) => ({ user_group_id: id, name: '😀'.repeat(255) }),
      },
      {
        title: 'user_group_id and name of 1 character',
        body: (id) => ({ user_group_id: String.fromCodePoint(0x4e00 + counter), name: id.slice(0, 1) }),
      },
      { title: 'mapping with 100 entries', body: (id) => ({ user_group_id: id, name: 'N', mapping: mappingWith(100) }) },
      {
        title: 'mapping with a 255-character key and value',
        body: (id) => ({ user_group_id: id, name: 'N', mapping: { ['k'.repeat(255)]: 'v'.repeat(255) } }),
      },
      {
        title: 'mapping integers at the ends of the safe range',
        body: (id) => ({ user_group_id: id, name: 'N', mapping: { max: MAX_SAFE, min: -MAX_SAFE, zero: 0, neg: -1 } }),
      },
      { title: 'empty mapping and properties', body: (id) => ({ user_group_id: id, name: 'N', mapping: {}, properties: {} }) },
      {
        title: 'properties of exactly 64 KiB serialized',
        body: (id) => ({ user_group_id: id, name: 'N', properties: propertiesOfSize(PROPERTIES_MAX_BYTES) }),
      },
      {
        title: 'unknown body fields, which are ignored',
        body: (id) => ({ user_group_id: id, name: 'N', colour: 'blue', token: 'ugt_mine', team_id: 1 }),
      },
    ];
    for (const ok of accepted) {
      it(ok.title, async () => {
        const id = freshId('get-ok');
        const body = ok.body(id);
        const res = await server.api.getOrCreate(body);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.new_user_group, true);
        assert.equal(res.json.user_group.provided_id, body.user_group_id);
        assert.equal(res.json.user_group.name, body.name);
        assert.equal(res.json.user_group.colour, undefined);
        assert.notEqual(res.json.user_group.token, 'ugt_mine');
        if (body.properties !== undefined) assert.deepEqual(res.json.user_group.properties, body.properties);
        const again = await server.api.getOrCreate({ user_group_id: body.user_group_id });
        assert.equal(again.json.new_user_group, false, 'the id round-trips exactly');
      });
    }
  });

  describe('PUT /api/user refuses bad input with 400 invalid_request and changes nothing', () => {
    for (const bad of SHARED_BAD_CASES) {
      it(bad.title, async () => {
        const id = freshId('put-bad');
        const created = await server.api.getOrCreate({ user_group_id: id, name: 'Before', properties: { keep: true } });
        assert.equal(created.status, 200);
        const message = assertError(await server.api.update(bad.body(id)), 400, 'invalid_request');
        assert.match(message, bad.message);
        const after = await server.api.getOrCreate({ user_group_id: id });
        assert.deepEqual(after.json.user_group, created.json.user_group, 'the group is unchanged');
      });
    }

    it('accepts values at the limits', async () => {
      const id = freshId('put-ok');
      await server.api.getOrCreate({ user_group_id: id, name: 'Before' });
      const res = await server.api.update({
        user_group_id: id,
        name: '😀'.repeat(255),
        mapping: { ...mappingWith(99), max: MAX_SAFE },
        properties: propertiesOfSize(PROPERTIES_MAX_BYTES),
        colour: 'ignored',
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.user_group.name, '😀'.repeat(255));
      assert.deepEqual(res.json.user_group.properties, propertiesOfSize(PROPERTIES_MAX_BYTES));
      assert.equal(res.json.user_group.colour, undefined);
    });

    it('answers 404 not_found for a group that does not exist, and does not create it', async () => {
      const id = freshId('put-missing');
      const message = assertError(await server.api.update({ user_group_id: id, name: 'Ghost' }), 404, 'not_found');
      assert.match(message, new RegExp(id));
      await assertNotCreated(server.api, id);
    });

    it('clears properties with properties: null', async () => {
      const id = freshId('put-clear');
      await server.api.getOrCreate({ user_group_id: id, name: 'Clear', properties: { region: 'eu' } });
      const res = await server.api.update({ user_group_id: id, properties: null });
      assert.equal(res.status, 200, res.text);
      assert.equal('properties' in res.json.user_group, false);
      const after = await server.api.getOrCreate({ user_group_id: id });
      assert.equal('properties' in after.json.user_group, false);
    });
  });

  describe('bodies that are not a JSON object', () => {
    for (const method of ['GET', 'PUT'] as const) {
      for (const raw of NOT_AN_OBJECT) {
        it(`${method} with body ${raw} is 400 "must be a JSON object"`, async () => {
          const message = assertError(await server.api.call(method, raw), 400, 'invalid_request');
          assert.match(message, /must be a JSON object/);
        });
      }
      it(`${method} with body null is 400 invalid_request`, async () => {
        assertError(await server.api.call(method, 'null'), 400, 'invalid_request');
      });
      for (const raw of NOT_JSON) {
        it(`${method} with invalid JSON ${raw} is 400 "not valid JSON"`, async () => {
          const message = assertError(await server.api.call(method, raw), 400, 'invalid_request');
          assert.match(message, /not valid JSON/);
        });
      }
      it(`${method} with an empty body and Content-Type: application/json is 400`, async () => {
        assertError(await server.api.call(method, ''), 400, 'invalid_request');
      });
      it(`${method} with a whitespace-only body is 400`, async () => {
        assertError(await server.api.call(method, ' \r\n\t '), 400, 'invalid_request');
      });
    }

    it('POST with body [] is 400 "must be a JSON object"', async () => {
      const message = assertError(await server.api.call('POST', '[]'), 400, 'invalid_request');
      assert.match(message, /must be a JSON object/);
    });

    it('GET with body null says the body must be a JSON object', async () => {
      const message = assertError(await server.api.call('GET', 'null'), 400, 'invalid_request');
      assert.match(message, /must be a JSON object/);
    });

    it('PUT with body null says the body must be a JSON object', async () => {
      const message = assertError(await server.api.call('PUT', 'null'), 400, 'invalid_request');
      assert.match(message, /must be a JSON object/);
    });

    it('a refused body creates nothing', async () => {
      const id = freshId('not-json');
      assertError(await server.api.call('GET', `{"user_group_id":${JSON.stringify(id)},"name":"N"`), 400, 'invalid_request');
      assertError(await server.api.call('GET', `[{"user_group_id":${JSON.stringify(id)},"name":"N"}]`), 400, 'invalid_request');
      await assertNotCreated(server.api, id);
    });
  });

  describe('body size: at most 1 MiB', () => {
    for (const method of ['GET', 'PUT'] as const) {
      it(`${method} accepts a body of exactly 1 MiB`, async () => {
        const id = freshId('mib');
        if (method === 'PUT') await server.api.getOrCreate({ user_group_id: id, name: 'Before' });
        const res = await server.api.call(method, bodyOfSize({ user_group_id: id, name: 'Big' }, MIB));
        assert.equal(res.status, 200, res.text.slice(0, 300));
        assert.equal(res.json.user_group.name, 'Big');
      });

      it(`${method} refuses a body one byte over 1 MiB with 413 payload_too_large`, async () => {
        const id = freshId('mib-over');
        if (method === 'PUT') await server.api.getOrCreate({ user_group_id: id, name: 'Before' });
        const message = assertError(
          await server.api.call(method, bodyOfSize({ user_group_id: id, name: 'Big' }, MIB + 1)),
          413,
          'payload_too_large',
        );
        assert.match(message, /1 MiB/);
        if (method === 'GET') await assertNotCreated(server.api, id);
        else assert.equal((await server.api.getOrCreate({ user_group_id: id })).json.user_group.name, 'Before');
      });
    }

    it('refuses a body of several MiB with 413 too', async () => {
      const id = freshId('mib-many');
      assertError(await server.api.call('GET', bodyOfSize({ user_group_id: id, name: 'Big' }, 4 * MIB)), 413, 'payload_too_large');
      await assertNotCreated(server.api, id);
    });
  });

  describe('mapping values are validated whatever the key', () => {
    // Ajv's "." in the Record's `^(.*)$` key pattern does not match line terminators,
    // so keys containing them may escape the value schema.
    for (const [label, key] of [
      ['\\n', 'a\nb'],
      ['\\r', 'a\rb'],
      ['\\u2028', 'a\u2028b'],
      ['\\u2029', 'a\u2029b'],
    ] as const) {
      it(`GET refuses a bad value under a key containing ${label}`, async () => {
        const id = freshId('map-key');
        const res = await server.api.getOrCreate({ user_group_id: id, name: 'N', mapping: { [key]: { nested: ['not', 'a', 'source'] } } });
        assertError(res, 400, 'invalid_request');
        await assertNotCreated(server.api, id);
      });
      it(`PUT refuses a bad value under a key containing ${label}`, async () => {
        const id = freshId('map-key-put');
        await server.api.getOrCreate({ user_group_id: id, name: 'N' });
        assertError(await server.api.update({ user_group_id: id, mapping: { [key]: 1.5 } }), 400, 'invalid_request');
      });
    }
  });

  describe('POST /api/user (rotate) refuses a bad current_token', () => {
    const badTypes: [string, unknown][] = [
      ['missing', {}],
      ['a number', { current_token: 123 }],
      ['null', { current_token: null }],
      ['true', { current_token: true }],
      ['an object', { current_token: { token: 'ugt_x' } }],
      ['an array', { current_token: ['ugt_x'] }],
      ['empty', { current_token: '' }],
      ['longer than 1024 characters', { current_token: `ugt_${'a'.repeat(1024)}` }],
    ];
    for (const [title, body] of badTypes) {
      it(`current_token ${title} is 400 invalid_request`, async () => {
        const message = assertError(await server.api.call('POST', body), 400, 'invalid_request');
        assert.match(message, /"current_token"/);
      });
    }

    it('a malformed token string is 404 not_found', async () => {
      for (const token of ['nope', 'ugt_', 'ugt_short', 'ugsk_' + 'a'.repeat(49), ' ']) {
        assertError(await server.api.rotate(token), 404, 'not_found');
      }
    });

    it('a well-shaped token with a wrong checksum, or a token that does not exist, is 404 not_found', async () => {
      const id = freshId('rotate');
      const token: string = (await server.api.getOrCreate({ user_group_id: id, name: 'Rotate' })).json.user_group.token;
      const last = token.at(-1) === 'a' ? 'b' : 'a';
      assertError(await server.api.rotate(token.slice(0, -1) + last), 404, 'not_found');
      // A well-formed token nobody holds: rotate once, then the old one is unknown.
      const rotated = await server.api.rotate(token);
      assert.equal(rotated.status, 200, rotated.text);
      assertError(await server.api.rotate(token), 404, 'not_found');
    });
  });

  describe('authentication and authorisation', () => {
    it('401 unauthenticated without an Authorization header, creating nothing', async () => {
      const id = freshId('anon');
      const res = await server.api.call('GET', { user_group_id: id, name: 'N' }, { headers: { authorization: '' } });
      const message = assertError(res, 401, 'unauthenticated');
      assert.match(message, /Authorization/);
      await assertNotCreated(server.api, id);
    });

    it('401 unauthenticated for a wrong scheme, a malformed key and an unknown key', async () => {
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Token', 'Token not-a-key', `Token ugsk_${'0'.repeat(49)}`]) {
        for (const method of ['GET', 'PUT', 'POST']) {
          assertError(
            await server.api.call(method, { user_group_id: 'x', name: 'x' }, { headers: { authorization } }),
            401,
            'unauthenticated',
          );
        }
      }
    });

    it('401 comes before body checks: a bad body without a key is still 401', async () => {
      assertError(await server.api.call('PUT', '{"a":', { headers: { authorization: '' } }), 401, 'unauthenticated');
    });

    it('403 forbidden when a read-only key would create, update or rotate', async () => {
      const readOnly = await server.client({ access: 'read-only' });
      const id = freshId('ro');
      assertError(await readOnly.getOrCreate({ user_group_id: id, name: 'RO' }), 403, 'forbidden');
      await assertNotCreated(server.api, id);
      const token: string = (await server.api.getOrCreate({ user_group_id: id })).json.user_group.token;
      assertError(await readOnly.update({ user_group_id: id, name: 'Changed' }), 403, 'forbidden');
      assertError(await readOnly.rotate(token), 403, 'forbidden');
      const after = await server.api.getOrCreate({ user_group_id: id });
      assert.equal(after.json.user_group.name, 'Check');
      assert.equal(after.json.user_group.token, token);
      const read = await readOnly.getOrCreate({ user_group_id: id });
      assert.equal(read.status, 200, 'a read-only key may read an existing group');
    });
  });
});
