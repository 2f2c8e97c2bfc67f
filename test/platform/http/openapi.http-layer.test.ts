import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { before, describe, it } from 'node:test';
import { ERROR_CODES } from '../../../src/kernel/errors.js';
import { ERROR_STATUS } from '../../../src/platform/http/error-status.js';
import { rawRequest, type ApiClient } from '../../helpers/http-client.js';
import { build, suiteTeardown, type Teardown, type TestApp } from '../../helpers/build.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is plain JSON walked by key */
type Doc = any;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Served by the reference itself, pages for people (the operator console) or scripts for browsers (/embed/): not the API it describes. */
const isReferenceRoute = (url: string) =>
  // The home page a browser gets at / (an API client gets the 404 of an unknown path there).
  url === '/' ||
  url === '/openapi.json' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url === '/console' ||
  url.startsWith('/console/') ||
  url.startsWith('/embed/');

interface Recorded {
  server: TestApp;
  /** `METHOD /path` of every route the app registered, in OpenAPI path syntax. */
  routes: string[];
}

/**
 * Starts the real app while recording every route it registers, through
 * Fastify's `fastify.initialization` diagnostics channel: the onRoute hook is
 * in place before buildApp registers anything, so no route can slip past it.
 * `beforeBuild` runs on the fresh instance before buildApp touches it.
 */
async function startRecording(t: Teardown, beforeBuild?: (app: FastifyInstance) => void): Promise<Recorded> {
  const routes: string[] = [];
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) routes.push(`${method} ${route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    });
    beforeBuild?.(fastify);
  };
  subscribe('fastify.initialization', onInit);
  try {
    return { server: await build(t, { apiKey: false }), routes };
  } finally {
    unsubscribe('fastify.initialization', onInit);
  }
}

/** Routes the app serves that the document lacks, and operations the document has that the app does not serve. */
function compare(doc: Doc, routes: string[]): { undocumented: string[]; unserved: string[] } {
  const served = routes.filter((r) => !isReferenceRoute(r.slice(r.indexOf(' ') + 1)));
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${path}`),
  );
  return {
    undocumented: served.filter((r) => !documented.includes(r)).sort(),
    unserved: documented.filter((r) => !served.includes(r)).sort(),
  };
}

function operations(doc: Doc): { key: string; method: string; path: string; op: Doc }[] {
  return Object.entries(doc.paths as Record<string, Record<string, Doc>>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({
      key: `${method.toUpperCase()} ${path}`,
      method,
      path,
      op: item[method],
    })),
  );
}

/** Every `{ schema, example | examples }` media object of the document, with where it is. */
function mediaObjects(doc: Doc): { where: string; media: Doc }[] {
  const found: { where: string; media: Doc }[] = [];
  const walk = (where: string, content: Record<string, Doc> | undefined) => {
    for (const [type, media] of Object.entries(content ?? {})) found.push({ where: `${where} ${type}`, media });
  };
  for (const { key, op } of operations(doc)) {
    walk(`${key} request`, op.requestBody?.content);
    for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) walk(`${key} ${status}`, response.content);
  }
  for (const [name, response] of Object.entries((doc.components?.responses ?? {}) as Record<string, Doc>))
    walk(`response ${name}`, response.content);
  return found;
}

function examplesOf(media: Doc): { name: string; value: unknown }[] {
  if (media.examples)
    return Object.entries(media.examples as Record<string, { value: unknown }>).map(([name, e]) => ({ name, value: e.value }));
  return media.example === undefined ? [] : [{ name: 'example', value: media.example }];
}

describe('GET /openapi.json', () => {
  const suite = suiteTeardown();
  let recorded: Recorded;
  let doc: Doc;
  before(async () => {
    recorded = await startRecording(suite);
    const res = await rawRequest(recorded.server.url, { method: 'GET', path: '/openapi.json' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json;
  });

  it('is a valid OpenAPI 3.1 document, needing no API key', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'User group service');
    assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
    const result = await validate(structuredClone(doc));
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    assert.deepEqual(result.warnings, []);
  });

  it('documents every route the server registers, and only those', () => {
    assert.ok(
      recorded.routes.includes('PUT /api/user') && recorded.routes.includes('GET /healthz'),
      `recorded: ${recorded.routes.join(', ')}`,
    );
    assert.deepEqual(compare(doc, recorded.routes), { undocumented: [], unserved: [] });
    assert.equal(doc.paths['/openapi.json'], undefined);
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/docs')));
  });

  it('the route check catches a route the document misses', async (t) => {
    // A route registered before the document's onRoute hook is in place is served but never documented.
    const other = await startRecording(t, (app) => {
      app.get('/undocumented', async () => ({}));
    });
    try {
      const otherDoc = (await rawRequest(other.server.url, { method: 'GET', path: '/openapi.json' })).json;
      assert.equal((await other.server.app.inject({ method: 'GET', url: '/undocumented' })).statusCode, 200);
      // Over the socket, the contract check every HTTP test goes through refuses the answer.
      await assert.rejects(
        rawRequest(other.server.url, { method: 'GET', path: '/undocumented' }),
        /GET \/undocumented answered 200, which the OpenAPI document does not allow: no declared path matches/,
      );
      assert.deepEqual(compare(otherDoc, other.routes), { undocumented: ['GET /undocumented', 'HEAD /undocumented'], unserved: [] });
    } finally {
      await other.server.close();
    }
  });

  it('declares the API key scheme: /api needs it, health does not, metrics takes its own token when one is set', () => {
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: doc.components.securitySchemes.apiKey.description,
    });
    assert.match(doc.components.securitySchemes.apiKey.description, /Token <API_KEY>/);
    assert.deepEqual(doc.components.securitySchemes.exploAuthorization, {
      type: 'apiKey',
      in: 'header',
      name: 'Explo-Authorization',
      description: doc.components.securitySchemes.exploAuthorization.description,
    });
    assert.deepEqual(doc.security, [{ apiKey: [] }, { exploAuthorization: [] }]);
    assert.deepEqual(doc.components.securitySchemes.metricsToken, {
      type: 'http',
      scheme: 'bearer',
      description: doc.components.securitySchemes.metricsToken.description,
    });
    for (const { key, path, op } of operations(doc)) {
      // Explo's v2 list lives at /v2/api/customers/, outside /api/, and needs a key all the same.
      if (path.startsWith('/api/') || path.startsWith('/v2/api/'))
        assert.equal(op.security, undefined, `${key} inherits the API key requirement`);
      else if (path === '/metrics') assert.deepEqual(op.security, [{}, { metricsToken: [] }], `${key}: no key, or the metrics token`);
      else assert.deepEqual(op.security, [], `${key} needs no key`);
    }
  });

  it("lists concrete error statuses, each its code's meaning, the envelope and an example of that code", () => {
    assert.equal(doc.components.schemas.ErrorResponse.properties.error.required.includes('request_id'), true);
    for (const { key, method, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        assert.match(status, /^\d{3}$/, `${key}: no status ranges`);
        if (Number(status) < 400) continue;
        const code = ERROR_CODES.find((c) => ERROR_STATUS[c] === Number(status));
        assert.ok(code && response.description.startsWith(`\`${code}\``), `${key} ${status}: ${response.description}`);
        assert.ok(response.headers['X-Request-Id'], `${key} ${status} X-Request-Id`);
        if (code === 'rate_limited') assert.ok(response.headers['Retry-After'], `${key} 429 Retry-After`);
        if (method === 'head') continue;
        const media = response.content['application/json'];
        assert.equal(media.schema.$ref, '#/components/schemas/ErrorResponse', `${key} ${status}`);
        assert.equal(media.example.error.code, code, `${key} ${status} example`);
      }
    }
    const statuses = (key: string) => {
      const [method, path] = key.split(' ') as [string, string];
      return Object.keys(doc.paths[path][method.toLowerCase()].responses).map(Number);
    };
    // Every request: 400 (a malformed URL), 500, 503 (shutdown, the store); a body (GET's too): 408, 413, 415; /api: 401, 429.
    const api = [200, 400, 401, 408, 413, 415, 429, 500, 503];
    const plus = (list: number[], ...more: number[]) => [...list, ...more].sort((a, b) => a - b);
    // 409: a placement the hierarchy refuses, a deletion of a group that has children.
    assert.deepEqual(statuses('GET /api/user'), plus(api, 403, 409));
    for (const key of ['PUT /api/user', 'DELETE /api/user']) assert.deepEqual(statuses(key), plus(api, 403, 404, 409), key);
    assert.deepEqual(statuses('POST /api/user'), plus(api, 403, 404));
    // Reads answer 403 too: to embed keys, which may only mint and end embed sessions; 404 for an unknown ?parent=.
    assert.deepEqual(statuses('GET /api/user_groups'), plus(api, 403, 404));
    assert.deepEqual(statuses('GET /api/user_groups/{user_group_id}/descendants'), plus(api, 403, 404));
    assert.deepEqual(statuses('GET /api/user_groups/{user_group_id}'), plus(api, 403, 404));
    assert.deepEqual(
      statuses('POST /api/embed_sessions').filter((s) => s !== 201),
      plus(api, 403, 404, 409).filter((s) => s !== 200),
    );
    assert.deepEqual(statuses('GET /api/embed_sessions/revocations'), [200, 400, 401, 429, 500, 503]);
    assert.deepEqual(statuses('GET /readyz'), [200, 400, 408, 413, 415, 500, 503]);
    assert.deepEqual(statuses('GET /metrics'), [200, 400, 401, 408, 413, 415, 500, 503]);
  });

  it('declares /metrics as the Prometheus text it answers', () => {
    assert.deepEqual(Object.keys(doc.paths['/metrics'].get.responses['200'].content), ['text/plain; version=0.0.4; charset=utf-8']);
  });

  it('GET /api/user has its JSON body, optional, and the query-string alternative', () => {
    const get = doc.paths['/api/user'].get;
    assert.ok(get.requestBody.content['application/json'].schema.properties.user_group_id);
    assert.equal(get.requestBody.required, false);
    assert.match(get.description, /query string/);
    const query = (get.parameters as Doc[]).filter((p) => p.in === 'query');
    assert.deepEqual(query.map((p) => p.name).sort(), ['mapping', 'name', 'parent_user_group_id', 'properties', 'user_group_id']);
    assert.ok(query.every((p) => p.required === false));
    for (const name of ['mapping', 'properties'])
      assert.ok(query.find((p) => p.name === name).content['application/json'].schema, `${name} is JSON-encoded`);
    for (const method of ['put', 'post', 'delete']) assert.equal(doc.paths['/api/user'][method].requestBody.required, true);
  });

  it("declares HEAD beside every GET: GET's statuses but those of reading a body, and no content; HEAD /api/user reads, so 404, and 403 only for embed keys", () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
      if (!item.get) continue;
      assert.ok(item.head, `HEAD ${path}`);
      for (const [status, response] of Object.entries(item.head.responses as Record<string, Doc>)) {
        assert.equal(response.content, undefined, `HEAD ${path} ${status} has no body`);
      }
      if (path === '/api/user') continue;
      const withoutBody = Object.keys(item.get.responses).filter((s) => !['408', '413', '415'].includes(s));
      assert.deepEqual(Object.keys(item.head.responses), withoutBody, `HEAD ${path}`);
    }
    const head = doc.paths['/api/user'].head;
    assert.deepEqual(Object.keys(head.responses).map(Number), [200, 400, 401, 403, 404, 429, 500, 503]);
    assert.equal(head.requestBody, undefined);
    const query = head.parameters as Doc[];
    assert.deepEqual(query.map((p) => p.name).sort(), ['mapping', 'name', 'parent_user_group_id', 'properties', 'user_group_id']);
    assert.equal(query.find((p) => p.name === 'user_group_id').required, true);
  });

  it('has examples for every request body and every JSON success answer, and each fits its schema', async () => {
    const resolved = await dereference(structuredClone(doc));
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    for (const { key, op } of operations(doc)) {
      const request = op.requestBody?.content?.['application/json'];
      if (request) assert.ok(examplesOf(request).length > 0, `${key} request body example`);
      const ok = op.responses['200']?.content?.['application/json'];
      if (ok && ok.schema.type === 'object') assert.ok(examplesOf(ok).length > 0, `${key} 200 example`);
    }
    const all = mediaObjects(resolved);
    assert.ok(all.length > 20);
    for (const { where, media } of all) {
      const check = ajv.compile(media.schema);
      for (const { name, value } of examplesOf(media)) assert.ok(check(value), `${where} example ${name}: ${ajv.errorsText(check.errors)}`);
    }
  });

  /** A live session's token, of a group made for it. */
  async function mintedToken(client: ApiClient): Promise<string> {
    await client.getOrCreate({ user_group_id: 'openapi-renewal', name: 'Renewal example' });
    return (await client.call('POST', { user_group_id: 'openapi-renewal' }, { path: '/api/embed_sessions' })).json.embed_session.token;
  }

  it("the request examples pass the server's own validation, and its answers fit the documented schemas", async () => {
    const resolved = await dereference(structuredClone(doc));
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const client = await recorded.server.client();
    let sent = 0;
    for (const { key, method, path, op } of operations(resolved)) {
      const media = op.requestBody?.content?.['application/json'];
      // Answered 400 by design (docs/customer-api.md: this service has no customer portal), whatever the body.
      if (!media || path.includes('{') || path === '/api/configure_customer_portal/') continue;
      for (const { name, value } of examplesOf(media)) {
        // Only a token this service signed renews: the example's placeholder is replaced by one minted for the run.
        const body = path === '/api/embed_sessions/renew' ? { ...(value as object), token: await mintedToken(client) } : value;
        const res = await client.call(method.toUpperCase(), body, { path });
        sent++;
        assert.ok(![400, 413, 415].includes(res.status), `${key} example ${name}: ${res.status} ${res.text}`);
        const documented = op.responses[String(res.status)]?.content?.['application/json']?.schema;
        assert.ok(documented, `${key} example ${name}: status ${res.status} is documented`);
        const check = ajv.compile(documented);
        assert.ok(check(res.json), `${key} example ${name}: ${ajv.errorsText(check.errors)}`);
      }
    }
    assert.ok(sent >= 5);
  });
});
