import type { FastifyInstance } from 'fastify';
import { isUtf8 } from 'node:buffer';
import secureJson from 'secure-json-parse';
import { invalidRequest } from '../../kernel/errors.js';
import { scanJson, type JsonFinding } from './json-scan.js';

/** The largest request body the service reads: the HTTP app's limit and this parser's. */
export const BODY_MAX_BYTES = 1024 * 1024;

const MAX_DEPTH = 64;

/**
 * The only body parser: JSON, at most 1 MiB, refusing what would corrupt or
 * endanger stored data rather than fail later: prototype-poisoning keys,
 * nesting deeper than 64 levels (it would overflow the stack when serialized)
 * lone UTF-16 surrogates (not representable in UTF-8 storage), invalid
 * UTF-8, which decoding would replace by U+FFFD so that two different byte
 * strings became the same user_group_id, a key given twice in one object (the
 * last would win unseen) and numbers a double cannot hold exactly (they would
 * be stored changed). Every other content type is answered 415 by Fastify.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_MAX_BYTES }, (request, bytes, done) => {
    try {
      const text = decodeUtf8(bytes as Buffer);
      // A GET with the JSON content type but nothing in it uses the query string instead.
      if (request.method === 'GET' && text.trim() === '') return done(null, undefined);
      done(null, parseJsonBody(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

function decodeUtf8(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw invalidRequest('The request body is not valid UTF-8; send JSON encoded as UTF-8.');
  return bytes.toString('utf8');
}

export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw invalidRequest('The request body is empty; send a JSON object.');
  const finding = scanJson(text, MAX_DEPTH);
  if (finding?.kind === 'too-deep') throw invalidRequest(`The request body nests deeper than ${MAX_DEPTH} levels.`);
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const reason = (error as Error).message;
    if (/prototype/i.test(reason)) throw invalidRequest('The request body may not contain "__proto__" or "constructor.prototype" keys.');
    throw invalidRequest(`The request body is not valid JSON: ${reason}.`);
  }
  // Lone surrogates can only arrive as \u escapes; skip the walk for bodies without any.
  if (/\\u[dD][89a-fA-F]/.test(text) && !isWellFormedDeep(value)) {
    throw invalidRequest('The request body contains an unpaired UTF-16 surrogate (\\uD800-\\uDFFF) in a string.');
  }
  if (finding !== undefined) throw invalidRequest(describeFinding(finding));
  return value;
}

/** Begins with "The request body", which the console and the query string replace by the field's name. */
function describeFinding(finding: Exclude<JsonFinding, { kind: 'too-deep' }>): string {
  if (finding.kind === 'duplicate-key') {
    const where = finding.path.length === 0 ? '' : ` in the object at ${quotedPath(finding.path)}`;
    return `The request body has the key ${JSON.stringify(finding.key)} twice${where}; give each key once.`;
  }
  return (
    `The request body has the number ${finding.literal} at ${quotedPath(finding.path)}, which would be stored as ${finding.becomes}: ` +
    'send numbers a 64-bit double holds exactly (integers up to ±9007199254740991, at most 15 significant digits), or the value as a string.'
  );
}

/** `["properties", "a", "0"]` as `"properties.a.0"`, the way validation messages name a field. */
function quotedPath(path: readonly string[]): string {
  return path.length === 0 ? 'the top level' : `"${path.join('.')}"`;
}

function isWellFormedDeep(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(isWellFormedDeep);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => key.isWellFormed() && isWellFormedDeep(item));
  }
  return true;
}
