import type { ErrorCode } from '../../kernel/errors.js';

/** The one place error codes meet HTTP statuses. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/**
 * When each code is answered, in the words of docs/errors.md (generated from this table and ERROR_STATUS
 * by `npm run docs`; a test fails when the checked-in file differs).
 */
export const ERROR_WHEN: Readonly<Record<ErrorCode, string>> = {
  invalid_request:
    'The body is not JSON, not an object, has a field of the wrong type, misses a required field, or breaks a limit (see docs/reference.md, Limits). Also: `name` missing when creating, a malformed query string or URL, malformed HTTP.',
  unauthenticated:
    'No `Authorization` header, a header that is not `Token <key>` / `Bearer <key>`, or a malformed, unknown or revoked key.',
  forbidden:
    'A read-only key tried to create, update, rotate, delete or mint an embed session; or an embed key called anything but the embed session routes.',
  not_found:
    "Unknown path; `PUT` or `DELETE` for a group that does not exist in the key's environment (a group deleted before, too); `POST` with an unknown, malformed or already rotated token.",
  method_not_allowed: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  conflict:
    'A change the group hierarchy refuses: a parent that would put a group under itself or one of its descendants, a chain deeper than 5 levels (a root and four below), or `DELETE` of a group that has children without `"cascade": true`.',
  request_timeout:
    'The headers (`UGS_HEADERS_TIMEOUT_MS`, 10 s by default) or the whole request (`UGS_REQUEST_TIMEOUT_MS`, 30 s) did not arrive in time; the connection is closed.',
  payload_too_large: 'The body is larger than 1 MiB.',
  unsupported_media_type: 'A body sent with a `Content-Type` other than `application/json`, or with none.',
  rate_limited:
    "Too many requests for this API key (when a limit is configured), or another failed authentication from an address that failed too often this minute (a valid key from it is still served); retry after the `Retry-After` header's seconds.",
  unavailable:
    "The store is not answering (`/readyz`), the server is shutting down, or a group's token is sealed under a server secret this server does not have yet (a secret rotation under way). Retry.",
  internal: 'A fault in the service, never caused by input. It is logged with the request id (`X-Request-Id`).',
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]));

/** The code answered with `status`, if any (statuses are distinct, a test checks). */
function codeForStatus(status: number): ErrorCode | undefined {
  return CODE_BY_STATUS.get(status);
}

/** The code for an error some library raised with a 4xx status; unknown ones are plain bad requests. */
export function codeForClientStatus(status: number): ErrorCode {
  return codeForStatus(status) ?? 'invalid_request';
}
