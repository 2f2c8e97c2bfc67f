import type { ErrorCode } from '../domain/errors.js';

/** The one place error codes meet HTTP statuses. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

const CODE_BY_STATUS = new Map<number, ErrorCode>(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]));

/** The code for an error some library raised with a 4xx status; unknown ones are plain bad requests. */
export function codeForClientStatus(status: number): ErrorCode {
  return CODE_BY_STATUS.get(status) ?? 'invalid_request';
}
