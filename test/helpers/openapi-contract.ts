import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { subscribe } from 'node:diagnostics_channel';

/**
 * The OpenAPI document as a contract the tests enforce: every answer an HTTP test
 * receives from an app running in this process is checked against that app's own
 * document (`app.swagger()`, what GET /openapi.json serves). The (method, path
 * template, status) must be declared, the content type must be one the response
 * declares, and the body must validate against the declared schema, resolved with
 * the document's components. http-client.ts calls `contractViolation` for every
 * answer, so no test opts in.
 *
 * Apps are found through Fastify's `fastify.initialization` diagnostics channel,
 * whatever starts them; answers from other processes (a CLI-spawned server, a proxy)
 * have no app here and are not checked.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is plain JSON walked by key */
type Doc = any;

const appsByPort = new Map<number, FastifyInstance>();

subscribe('fastify.initialization', (message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  fastify.addHook('onListen', function (done) {
    const address = this.server.address();
    if (address !== null && typeof address === 'object') appsByPort.set(address.port, this);
    done();
  });
  fastify.addHook('onClose', (instance, done) => {
    for (const [port, app] of appsByPort) if (app === instance) appsByPort.delete(port);
    done();
  });
});

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Why `answer` breaks the document of the app that gave it, or undefined when it does not (or no document applies). */
export function contractViolation(url: URL, method: string, answer: Answer): string | undefined {
  const app = appsByPort.get(Number(url.port));
  const swagger = (app as (FastifyInstance & { swagger?: () => Doc }) | undefined)?.swagger;
  if (!app || !isLoopback(url.hostname) || typeof swagger !== 'function') return undefined;
  return violationOf(swagger.call(app), method, url.pathname, answer);
}

/** Why `answer` to `method path` breaks `doc`, or undefined when it does not. */
export function violationOf(doc: Doc, method: string, path: string, answer: Answer): string | undefined {
  const problems = contractOf(doc).check(method.toUpperCase(), path, answer);
  return problems.length === 0
    ? undefined
    : `${method.toUpperCase()} ${path} answered ${answer.status}, which the OpenAPI document does not allow: ${problems.join('; ')}`;
}

/** One contract per distinct document: each app has its own copy, mostly the same text, and compiling costs. */
const contracts = new WeakMap<object, Contract>();
const contractsByText = new Map<string, Contract>();
function contractOf(doc: Doc): Contract {
  let contract = contracts.get(doc);
  if (!contract) {
    const text = JSON.stringify(doc);
    contract = contractsByText.get(text) ?? new Contract(doc);
    contractsByText.set(text, contract);
    contracts.set(doc, contract);
  }
  return contract;
}

const DOC_ID = 'openapi.json';
/** Refusals before routing (see checkUndeclared): 400, 413, 415, 503. */
const BEFORE_ROUTING = new Set([400, 413, 415, 503]);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: { template: string; pattern: RegExp; item: Record<string, Doc> }[];

  constructor(private readonly doc: Doc) {
    this.ajv.addFormat('date-time', {
      type: 'string',
      validate: (value: string) => /^\d{4}-\d\d-\d\dT/.test(value) && !Number.isNaN(Date.parse(value)),
    });
    this.ajv.addSchema(doc, DOC_ID);
    // Static paths first, as the router prefers them over templates.
    this.paths = Object.entries(doc.paths as Record<string, Record<string, Doc>>)
      .map(([template, item]) => ({
        template,
        item,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
  }

  check(method: string, path: string, answer: Answer): string[] {
    const found = this.paths.find((p) => p.pattern.test(path));
    const operation = found?.item[method.toLowerCase()];
    if (!found || !operation) return this.checkUndeclared(method, path, found?.item, answer);
    const pointer = `/paths/${escape(found.template)}/${method.toLowerCase()}/responses`;
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, 'default'].find((k) => operation.responses?.[k] !== undefined);
    if (key === undefined)
      return [`status ${answer.status} is not declared (declared: ${Object.keys(operation.responses ?? {}).join(', ')})`];
    const response = this.resolve(`${pointer}/${escape(key)}`);
    return this.checkContent(response.pointer, response.node, method, answer);
  }

  /**
   * OpenAPI 3.1 cannot declare "any other method" or "any other path", yet the service answers them: 405 with
   * `Allow` (the methods the document declares for the path) on a known path, 404 on any other, both with the
   * error envelope of components.schemas; or first one of the refusals any request meets before its route is
   * known (a malformed URL or method, a body too large or not JSON, shutdown). Checked as such. The reference
   * itself (/openapi.json, /docs) is not part of the API it describes and is exempt.
   */
  private checkUndeclared(method: string, path: string, item: Record<string, Doc> | undefined, answer: Answer): string[] {
    if (path === '/openapi.json' || path === '/docs' || path.startsWith('/docs/')) return [];
    const problems: string[] = [];
    const allowed = METHODS.filter((m) => item?.[m] !== undefined).map((m) => m.toUpperCase());
    if (item && answer.status === 405) {
      const allow = String(answer.headers.allow ?? '')
        .split(/,\s*/)
        .filter(Boolean)
        .sort();
      if (allow.join() !== [...allowed].sort().join())
        problems.push(`Allow "${String(answer.headers.allow)}" is not the declared methods ${allowed.join(', ')}`);
    } else if (!BEFORE_ROUTING.has(answer.status) && (answer.status !== 404 || item)) {
      problems.push(
        item
          ? `${method} is not declared for this path (declared: ${allowed.join(', ')}), so the answer must be 405`
          : 'no declared path matches, so the answer must be 404',
      );
    }
    if (method !== 'HEAD') problems.push(...this.checkBody(`/components/schemas/ErrorResponse`, 'application/json', answer));
    return problems;
  }

  private checkContent(pointer: string, response: Doc, method: string, answer: Answer): string[] {
    const content = response.content as Record<string, Doc> | undefined;
    if (method === 'HEAD' || !content || Object.keys(content).length === 0) {
      return answer.text === '' ? [] : [`the response declares no content, yet has ${Buffer.byteLength(answer.text)} bytes`];
    }
    const received = String(answer.headers['content-type'] ?? '');
    const declared = Object.keys(content).find((type) => mediaTypeMatches(type, received));
    if (declared === undefined) return [`content type "${received}" is not declared (declared: ${Object.keys(content).join(', ')})`];
    if (!content[declared].schema) return [];
    return this.checkBody(`${pointer}/content/${escape(declared)}/schema`, declared, answer);
  }

  private checkBody(pointer: string, mediaType: string, answer: Answer): string[] {
    let body: unknown = answer.text;
    if (/[/+]json\b/i.test(mediaType)) {
      try {
        body = JSON.parse(answer.text);
      } catch (error) {
        return [`the body is not JSON (${(error as Error).message}): ${answer.text.slice(0, 200)}`];
      }
    }
    let validate = this.validators.get(pointer);
    if (!validate) this.validators.set(pointer, (validate = this.ajv.compile({ $ref: `${DOC_ID}#${pointer}` })));
    if (validate(body)) return [];
    return [`the body does not fit ${pointer}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
  }

  /** The node at a JSON pointer of the document, `$ref`s (to components.responses, say) followed. */
  private resolve(pointer: string): { pointer: string; node: Doc } {
    const node = pointer
      .split('/')
      .slice(1)
      .reduce((at: Doc, part) => at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    return typeof node?.$ref === 'string' && node.$ref.startsWith('#/') ? this.resolve(node.$ref.slice(1)) : { pointer, node };
  }
}

/** JSON pointer escaping of one path segment. */
function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `declared` (e.g. `text/plain; version=0.0.4`) matches `received` when the types agree and each declared parameter is there. */
export function mediaTypeMatches(declared: string, received: string): boolean {
  const parse = (value: string) => {
    const [type = '', ...params] = value.split(';').map((part) => part.trim());
    return { type: type.toLowerCase(), params: new Set(params.map((p) => p.toLowerCase().replace(/\s*=\s*/, '='))) };
  };
  const want = parse(declared);
  const got = parse(received);
  return want.type === got.type && [...want.params].every((p) => got.params.has(p));
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname.startsWith('127.') || hostname === '[::1]';
}
