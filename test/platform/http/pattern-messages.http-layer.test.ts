import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PATTERNS } from '../../../src/platform/http/patterns.js';
import { buildForSuite } from '../../helpers/build.js';
import { assertError } from './assert-error.js';

/** A value that breaks a `pattern` is told the rule that pattern stands for, not one rule for all (issue 26, item 10). */
describe('pattern failures name the rule of their pattern', () => {
  const server = buildForSuite();

  it('says what an "after" cursor looks like', async () => {
    for (const path of ['/api/events?after=zzz', '/api/embed_sessions/revocations?after=42']) {
      const message = assertError(await server.api.call('GET', undefined, { path }), 400, 'invalid_request');
      assert.equal(
        message,
        '"after" must be a next_cursor this service handed out, unchanged: 22 characters of A-Z, a-z, 0-9, "-" and "_".',
        path,
      );
    }
  });

  it('says "control characters" where that is the rule', async () => {
    const message = assertError(await server.api.getOrCreate({ user_group_id: 'a\u0007b', name: 'A' }), 400, 'invalid_request');
    assert.equal(message, '"user_group_id" must not contain control characters (U+0000 to U+001F, U+007F).');
  });

  it('has a rule for every pattern in the OpenAPI document', async () => {
    const document = (await server.api.call('GET', undefined, { path: '/openapi.json' })).json;
    const found = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'pattern' && typeof value === 'string') found.add(value);
          else walk(value);
        }
      }
    };
    walk(document);
    assert.ok(found.size > 0);
    const known = new Set<string>(Object.values(PATTERNS).map((p) => p.pattern));
    assert.deepEqual(
      [...found].filter((pattern) => !known.has(pattern)),
      [],
    );
  });
});
