import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { after, before, describe, it } from 'node:test';
import { ERROR_CODES } from '../../src/domain/errors.js';
import { ERROR_STATUS } from '../../src/http/error-status.js';
import { rawRequest } from '../helpers/http-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is plain JSON walked by key */
type Doc = any;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Served by the reference itself, not part of the API it describes. */
const isReferenceRoute = (url: string) => url === '/openapi.json' || url === '/docs' || url.startsWith('/docs/');

interface Recorded {
  server: TestServer;
  /** `METHOD /path` of every route the app registered, in OpenAPI path syntax. */
  routes: string[];
}

/**
 * Starts the real app while recording every route it registers, through
 * Fastify's `fastify.initialization` diagnostics channel: the onRoute hook is
 * in place before buildApp registers anything, so no route can slip past it.
 * `beforeBuild` runs on the fresh instance before buildApp touches it.
 */
async function startRecording(beforeBuild?: (app: FastifyInstance) => void): Promise<Recorded> {
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
    return { server: await startTestServer(), routes };
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
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op: item[method] })),
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
  for (const [name, response] of Object.entries((doc.components?.responses ?? {}) as Record<string, Doc>)) walk(`response ${name}`, response.content);
  return found;
}

function examplesOf(media: Doc): { name: string; value: unknown }[] {
  if (media.examples) return Object.entries(media.examples as Record<string, { value: unknown }>).map(([name, e]) => ({ name, value: e.value }));
  return media.example === undefined ? [] : [{ name: 'example', value: media.example }];
}

describe('GET /openapi.json', () => {
  let recorded: Recorded;
  let doc: Doc;
  before(async () => {
    recorded = await startRecording();
    const res = await rawRequest(recorded.server.url, { method: 'GET', path: '/openapi.json' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json;
  });
  after(() => recorded.server.close());

  it('is a valid OpenAPI 3.1 document, needing no API key', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'User group service');
    assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
    const result = await validate(structuredClone(doc));
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
    assert.deepEqual(result.warnings, []);
  });

  it('documents every route the server registers, and only those', () => {
    assert.ok(recorded.routes.includes('PUT /api/user') && recorded.routes.includes('GET /healthz'), `recorded: ${recorded.routes.join(', ')}`);
    assert.deepEqual(compare(doc, recorded.routes), { undocumented: [], unserved: [] });
    assert.equal(doc.paths['/openapi.json'], undefined);
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/docs')));
  });

  it('the route check catches a route the document misses', async () => {
    // A route registered before the document's onRoute hook is in place is served but never documented.
    const other = await startRecording((app) => {
      app.get('/undocumented', async () => ({}));
    });
    try {
      const otherDoc = (await rawRequest(other.server.url, { method: 'GET', path: '/openapi.json' })).json;
      assert.equal((await rawRequest(other.server.url, { method: 'GET', path: '/undocumented' })).status, 200);
      assert.deepEqual(compare(otherDoc, other.routes), { undocumented: ['GET /undocumented', 'HEAD /undocumented'], unserved: [] });
    } finally {
      await other.server.close();
    }
  });

  it('declares the API key scheme: /api needs it, health and metrics do not', () => {
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: doc.components.securitySchemes.apiKey.description,
    });
    assert.match(doc.components.securitySchemes.apiKey.description, /Token <API_KEY>/);
    assert.deepEqual(doc.security, [{ apiKey: [] }]);
    for (const { key, path, op } of operations(doc)) {
      if (path.startsWith('/api/')) assert.equal(op.security, undefined, `${key} inherits the API key requirement`);
      else assert.deepEqual(op.security, [], `${key} needs no key`);
    }
  });

  it('lists concrete error statuses, each a documented code with the envelope', () => {
    for (const code of ERROR_CODES) {
      const response = doc.components.responses[code];
      assert.ok(response, `components.responses.${code}`);
      assert.ok(response.description.includes(code));
      const media = response.content['application/json'];
      assert.equal(media.schema.$ref, '#/components/schemas/ErrorResponse');
      assert.deepEqual(Object.keys(media.example), ['success', 'error']);
      assert.equal(media.example.error.code, code);
    }
    assert.ok(doc.components.responses.method_not_allowed.headers.Allow);
    assert.ok(doc.components.responses.rate_limited.headers['Retry-After']);
    for (const { key, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
        assert.match(status, /^\d{3}$/, `${key}: no status ranges left`);
        if (Number(status) < 400) continue;
        const code = ERROR_CODES.find((c) => ERROR_STATUS[c] === Number(status));
        assert.equal(response.$ref, `#/components/responses/${code}`, `${key} ${status}`);
      }
    }
    const statuses = (key: string) => {
      const [method, path] = key.split(' ') as [string, string];
      return Object.keys(doc.paths[path][method.toLowerCase()].responses).map(Number);
    };
    const common = [200, 400, 401, 403, 413, 415, 429, 500, 503];
    assert.deepEqual(statuses('GET /api/user'), common);
    assert.deepEqual(statuses('PUT /api/user'), [...common, 404].sort((a, b) => a - b));
    assert.deepEqual(statuses('POST /api/user'), [...common, 404].sort((a, b) => a - b));
    assert.deepEqual(statuses('GET /readyz'), [200, 400, 500, 503]);
  });

  it('GET /api/user has its JSON body and the query-string alternative', () => {
    const get = doc.paths['/api/user'].get;
    assert.ok(get.requestBody.content['application/json'].schema.properties.user_group_id);
    assert.equal(get.requestBody.required, false);
    assert.match(get.requestBody.description, /query string/);
    const query = (get.parameters as Doc[]).filter((p) => p.in === 'query').map((p) => p.name);
    assert.deepEqual(query.sort(), ['mapping', 'name', 'properties', 'user_group_id']);
    for (const method of ['put', 'post']) assert.equal(doc.paths['/api/user'][method].requestBody.required, true);
  });

  it('declares HEAD beside every GET: GET\'s statuses, no success body; HEAD /api/user reads, so 404 and never 403', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
      if (!item.get) continue;
      assert.ok(item.head, `HEAD ${path}`);
      for (const [status, response] of Object.entries(item.head.responses as Record<string, Doc>)) {
        if (/^2/.test(status)) assert.equal(response.content, undefined, `HEAD ${path} ${status} has no body`);
      }
      if (path === '/api/user') continue;
      assert.deepEqual(Object.keys(item.head.responses), Object.keys(item.get.responses), `HEAD ${path}`);
    }
    const head = doc.paths['/api/user'].head;
    assert.deepEqual(Object.keys(head.responses).map(Number), [200, 400, 401, 404, 429, 500, 503]);
    assert.equal(head.requestBody, undefined);
    const query = head.parameters as Doc[];
    assert.deepEqual(query.map((p) => p.name).sort(), ['mapping', 'name', 'properties', 'user_group_id']);
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

  it('the request examples pass the server\'s own validation, and its answers fit the documented schemas', async () => {
    const resolved = await dereference(structuredClone(doc));
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const client = await recorded.server.client();
    let sent = 0;
    for (const { key, method, path, op } of operations(resolved)) {
      const media = op.requestBody?.content?.['application/json'];
      if (!media || path.includes('{')) continue;
      for (const { name, value } of examplesOf(media)) {
        const res = await client.call(method.toUpperCase(), value, { path });
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
