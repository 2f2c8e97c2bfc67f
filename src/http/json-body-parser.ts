import type { FastifyInstance } from 'fastify';
import { isUtf8 } from 'node:buffer';
import secureJson from 'secure-json-parse';
import { invalidRequest } from '../domain/errors.js';
import { LIMITS } from '../domain/user-group.js';

const MAX_DEPTH = 64;

/**
 * The only body parser: JSON, at most 1 MiB, refusing what would corrupt or
 * endanger stored data rather than fail later: prototype-poisoning keys,
 * nesting deeper than 64 levels (it would overflow the stack when serialized)
 * lone UTF-16 surrogates (not representable in UTF-8 storage) and invalid
 * UTF-8, which decoding would replace by U+FFFD so that two different byte
 * strings became the same user_group_id. Every other content type is answered
 * 415 by Fastify.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: LIMITS.bodyMaxBytes }, (request, bytes, done) => {
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
  if (nestingExceeds(text, MAX_DEPTH)) throw invalidRequest(`The request body nests deeper than ${MAX_DEPTH} levels.`);
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
  return value;
}

function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93 /* } ] */) depth--;
  }
  return false;
}

function isWellFormedDeep(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(isWellFormedDeep);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => key.isWellFormed() && isWellFormedDeep(item));
  }
  return true;
}
