import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mediaTypeMatches, violationOf, type Answer } from '../../helpers/openapi-contract.js';

/** The contract check every HTTP test goes through (test/helpers/openapi-contract.ts), on a small document of its own. */
const ENVELOPE = {
  type: 'object',
  required: ['success', 'error'],
  properties: { success: { enum: [0] }, error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } },
};
const DOC = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  components: { schemas: { ErrorResponse: ENVELOPE } },
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          200: {
            description: 'ok',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id'],
                  properties: { id: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
                },
              },
            },
          },
          404: { description: 'no', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        },
      },
      head: { responses: { 200: { description: 'ok' } } },
    },
    '/things/special': {
      get: { responses: { 200: { description: 'ok', content: { 'text/plain; version=1': { schema: { type: 'string' } } } } } },
    },
  },
};

const json = (status: number, body: unknown, type = 'application/json; charset=utf-8'): Answer => ({
  status,
  headers: { 'content-type': type },
  text: JSON.stringify(body),
});
const check = (method: string, path: string, answer: Answer) => violationOf(DOC, method, path, answer);

describe('the contract check of HTTP answers', () => {
  it('accepts answers the document declares, static paths before templates, $refs to components followed', () => {
    assert.equal(check('GET', '/things/7', json(200, { id: 7, at: '2025-01-31T12:00:00.000Z' })), undefined);
    assert.equal(check('GET', '/things/7', json(404, { success: 0, error: { code: 'not_found' } })), undefined);
    assert.equal(check('HEAD', '/things/7', { status: 200, headers: { 'content-type': 'application/json' }, text: '' }), undefined);
    assert.equal(
      check('GET', '/things/special', { status: 200, headers: { 'content-type': 'text/plain; version=1; charset=utf-8' }, text: 'x 1' }),
      undefined,
    );
  });

  it('names the method, path and status, and what is wrong: an undeclared status, content type or body', () => {
    assert.match(
      check('GET', '/things/7', json(500, { success: 0, error: { code: 'internal' } })) ?? '',
      /^GET \/things\/7 answered 500, .*status 500 is not declared \(declared: 200, 404\)/,
    );
    assert.match(
      check('GET', '/things/special', { status: 200, headers: { 'content-type': 'application/json' }, text: '"x"' }) ?? '',
      /content type "application\/json" is not declared \(declared: text\/plain; version=1\)/,
    );
    assert.match(check('GET', '/things/7', json(200, { id: 'seven' })) ?? '', /the body does not fit .*body\/id must be integer/);
    assert.match(check('GET', '/things/7', json(200, { id: 1, at: 'yesterday' })) ?? '', /body\/at must match format "date-time"/);
    assert.match(
      check('GET', '/things/7', { status: 200, headers: { 'content-type': 'application/json' }, text: '{' }) ?? '',
      /the body is not JSON/,
    );
    assert.match(check('GET', '/things/7', json(404, { success: 1 })) ?? '', /must have required property 'error'/);
    assert.match(check('HEAD', '/things/7', { status: 200, headers: {}, text: 'body' }) ?? '', /declares no content, yet has 4 bytes/);
  });

  it('holds undeclared methods and paths to 405 with the declared methods in Allow, or 404, with the envelope', () => {
    const notFound = json(404, { success: 0, error: { code: 'not_found' } });
    assert.equal(check('GET', '/elsewhere', notFound), undefined);
    assert.equal(
      check('PATCH', '/things/7', {
        ...json(405, { success: 0, error: { code: 'method_not_allowed' } }),
        headers: { 'content-type': 'application/json', allow: 'GET, HEAD' },
      }),
      undefined,
    );
    assert.match(
      check('PATCH', '/things/7', {
        ...json(405, { success: 0, error: { code: 'method_not_allowed' } }),
        headers: { 'content-type': 'application/json', allow: 'GET' },
      }) ?? '',
      /Allow "GET" is not the declared methods GET, HEAD/,
    );
    assert.match(
      check('PATCH', '/things/7', notFound) ?? '',
      /PATCH is not declared for this path \(declared: GET, HEAD\), so the answer must be 405/,
    );
    assert.match(
      check('GET', '/elsewhere', json(200, { id: 1 })) ?? '',
      /no declared path matches, so the answer must be 404; the body does not fit/,
    );
    // Refused before routing (a malformed URL, say): still the envelope.
    assert.equal(check('GET', '/elsewhere%FF', json(400, { success: 0, error: { code: 'invalid_request' } })), undefined);
    assert.equal(check('GET', '/openapi.json', json(200, {})), undefined, 'the reference itself is exempt');
  });

  it('matches media types by type and the declared parameters', () => {
    assert.ok(mediaTypeMatches('text/plain; version=0.0.4', 'text/plain; version=0.0.4; charset=utf-8'));
    assert.ok(mediaTypeMatches('application/json', 'Application/JSON; charset=utf-8'));
    assert.ok(!mediaTypeMatches('text/plain; version=0.0.4', 'text/plain; charset=utf-8'));
    assert.ok(!mediaTypeMatches('application/json', 'text/plain'));
  });
});
