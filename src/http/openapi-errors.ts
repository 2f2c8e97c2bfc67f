import { ERROR_CODES, type ErrorCode } from '../domain/errors.js';
import { codeForStatus, ERROR_STATUS, ERROR_WHEN } from './error-status.js';
import { isApiPath, type Json, type Operation } from './openapi-document.js';

/**
 * The error half of the OpenAPI document: one shared response per error code
 * (status, docs/errors.md wording from ERROR_WHEN, example), and each operation's `4xx`/`5xx`
 * ranges replaced by the concrete statuses it can answer.
 */
/** A typical message for each error code, the example of its OpenAPI response (what it means is ERROR_WHEN). */
const ERROR_EXAMPLE_MESSAGE: Readonly<Record<ErrorCode, string>> = {
  invalid_request: '"name" must NOT have more than 255 characters.',
  unauthenticated: 'Missing "Authorization: Token <API_KEY>" header; create a key with `ugs keys create`.',
  forbidden: 'This API key is read-only; use a read-write key to change user groups.',
  not_found: 'No user group with "user_group_id" "acme" exists in the Customer environment.',
  method_not_allowed: 'PATCH is not supported on /api/user; use one of: GET, HEAD, PUT, POST, DELETE.',
  request_timeout: 'The request was not received in time; send headers and body without pausing.',
  payload_too_large: 'The request body is larger than the 1 MiB limit.',
  unsupported_media_type: 'Unsupported Content-Type "text/plain": send a JSON body with "Content-Type: application/json".',
  rate_limited: 'This API key made more than 600 requests this minute; retry in 1 minute.',
  unavailable: 'The store is not answering; retry shortly.',
  internal: 'The service failed to handle this request; it has been logged. Retry later.',
};

/**
 * Errors some operations can give beyond what `defaultErrorCodes` derives from
 * method, path and body: GET /api/user creates, so a read-only key can get 403.
 */
const EXTRA_ERRORS: Readonly<Record<string, readonly ErrorCode[]>> = {
  'GET /api/user': ['forbidden'],
  'HEAD /api/user': ['not_found'],
  'GET /metrics': ['unauthenticated'],
  'HEAD /metrics': ['unauthenticated'],
};

/** The statuses behind a route's `'4xx'` / `'5xx'`: what any such request can meet on the way. */
function defaultErrorCodes(method: string, path: string, operation: Operation, range: '4' | '5'): ErrorCode[] {
  if (range === '5') return ['internal', 'unavailable'];
  const codes: ErrorCode[] = ['invalid_request'];
  if (isApiPath(path)) {
    codes.push('unauthenticated', 'rate_limited');
    const writes = method !== 'get' && method !== 'head';
    if (writes) codes.push('forbidden');
    if (writes || path.includes('{')) codes.push('not_found');
  }
  if (operation.requestBody) codes.push('payload_too_large', 'unsupported_media_type');
  return codes;
}

export function errorComponentResponses(): Json {
  const responses: Json = {};
  for (const code of ERROR_CODES) {
    const when = ERROR_WHEN[code];
    const message = ERROR_EXAMPLE_MESSAGE[code];
    const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    if (code === 'method_not_allowed') headers.Allow = { description: 'The methods the path has.', schema: { type: 'string' }, example: 'GET, HEAD, PUT, POST, DELETE' };
    if (code === 'rate_limited') headers['Retry-After'] = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 }, example: 42 };
    responses[code] = {
      description: `\`${code}\`: ${when}`,
      headers,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorResponse' },
          example: { success: 0, error: { code, message, request_id: '6f1c2a9e-3b4d-4c8e-9a7f-2d5e8b1c0a43' } },
        },
      },
    };
  }
  return responses;
}

/** Replaces `4XX` / `5XX` (and any concrete error status a route declares) with the concrete shared responses. */
export function documentErrors(method: string, path: string, key: string, operation: Operation): void {
  const responses = (operation.responses ??= {});
  const codes = new Set<ErrorCode>(EXTRA_ERRORS[key] ?? []);
  for (const status of Object.keys(responses)) {
    const range = /^([45])XX$/i.exec(status)?.[1];
    if (range === '4' || range === '5') {
      for (const code of defaultErrorCodes(method, path, operation, range)) codes.add(code);
      delete responses[status];
    } else if (Number(status) >= 400) {
      const code = codeForStatus(Number(status));
      if (code) {
        codes.add(code);
        delete responses[status];
      }
    }
  }
  if (!Object.keys(responses).some((status) => /^2/.test(status))) responses['200'] = { description: 'Success.' };
  for (const [status, response] of Object.entries(responses)) {
    if (/^2/.test(status) && (response.description === undefined || response.description === 'Default Response')) response.description = 'Success.';
  }
  for (const code of [...codes].sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b])) {
    responses[String(ERROR_STATUS[code])] = { $ref: `#/components/responses/${code}` };
  }
}
