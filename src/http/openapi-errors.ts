import { ERROR_CODES, type ErrorCode } from '../domain/errors.js';
import { ERROR_STATUS } from './error-status.js';
import { isApiPath, type Json, type Operation } from './openapi-document.js';

/**
 * The error half of the OpenAPI document: one shared response per error code
 * (status, docs/errors.md wording, example), and each operation's `4xx`/`5xx`
 * ranges replaced by the concrete statuses it can answer.
 */
/** What each error code means, in the words of docs/errors.md, with a typical message. */
export const ERROR_DOCS: Readonly<Record<ErrorCode, { when: string; message: string }>> = {
  invalid_request: {
    when: 'The body is not JSON, not an object, has a field of the wrong type, misses a required field, or breaks a limit; also `name` missing when creating, or malformed HTTP.',
    message: '"name" must NOT have more than 255 characters.',
  },
  unauthenticated: {
    when: 'No `Authorization` header, a header that is not `Token <key>` / `Bearer <key>`, or a malformed, unknown or revoked key.',
    message: 'Missing "Authorization: Token <API_KEY>" header; create a key with `ugs keys create`.',
  },
  forbidden: { when: 'A read-only key tried to create, update, rotate or delete.', message: 'This API key is read-only; use a read-write key to change user groups.' },
  not_found: {
    when: 'Unknown path; no group with this `user_group_id` in the key\'s environment; `POST` with an unknown, malformed or already rotated token.',
    message: 'No user group with "user_group_id" "acme" exists in the Customer environment.',
  },
  method_not_allowed: {
    when: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
    message: 'PATCH is not supported on /api/user; use one of: GET, HEAD, PUT, POST, DELETE.',
  },
  request_timeout: {
    when: 'The headers (10 s) or the whole request (30 s) did not arrive in time; the connection is closed.',
    message: 'The request was not received in time; send headers and body without pausing.',
  },
  payload_too_large: { when: 'The body is larger than 1 MiB.', message: 'The request body is larger than the 1 MiB limit.' },
  unsupported_media_type: {
    when: 'A body sent with a `Content-Type` other than `application/json`, or with none.',
    message: 'Unsupported Content-Type "text/plain": send a JSON body with "Content-Type: application/json".',
  },
  rate_limited: {
    when: 'Too many requests for this API key (when a limit is configured), or another failed authentication from an address that failed too often this minute (a valid key from it is still served); retry after the `Retry-After` header\'s seconds.',
    message: 'This API key made more than 600 requests this minute; retry in 1 minute.',
  },
  unavailable: { when: 'The store is not answering, or the server is shutting down. Retry.', message: 'The store is not answering; retry shortly.' },
  internal: {
    when: 'A fault in the service, never caused by input. It is logged with the request id (`X-Request-Id`).',
    message: 'The service failed to handle this request; it has been logged. Retry later.',
  },
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(ERROR_CODES.map((code) => [ERROR_STATUS[code], code]));

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
    const { when, message } = ERROR_DOCS[code];
    const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    if (code === 'method_not_allowed') headers.Allow = { description: 'The methods the path has.', schema: { type: 'string' }, example: 'GET, HEAD, PUT, POST, DELETE' };
    if (code === 'rate_limited') headers['Retry-After'] = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 }, example: 42 };
    responses[code] = {
      description: `\`${code}\`: ${when}`,
      headers,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorResponse' },
          example: { success: 0, error: { code, message } },
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
      const code = CODE_BY_STATUS.get(Number(status));
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
