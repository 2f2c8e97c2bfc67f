/**
 * The closed set of failures the service reports. Every code has exactly one
 * HTTP status, declared in `src/platform/http/error-status.ts`; a test proves the two
 * lists match and that each code is documented in docs/errors.md.
 */
export const ERROR_CODES = [
  'invalid_request',
  'unauthenticated',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ServiceErrorDetails {
  /** When a retry may succeed, in whole seconds (rate_limited, unavailable). */
  retryAfterSeconds?: number;
  /** The methods the path does have (method_not_allowed). */
  allowedMethods?: readonly string[];
}

/** An expected failure with a message that tells the caller what to fix. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Facts a caller can act on; the HTTP layer turns them into headers (Retry-After, Allow). */
    readonly details: ServiceErrorDetails = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

export const invalidRequest = (message: string): ServiceError => new ServiceError('invalid_request', message);
export const unauthenticated = (message: string): ServiceError => new ServiceError('unauthenticated', message);
export const forbidden = (message: string): ServiceError => new ServiceError('forbidden', message);
export const notFound = (message: string): ServiceError => new ServiceError('not_found', message);
export const conflict = (message: string): ServiceError => new ServiceError('conflict', message);

/** Raised at start-up when configuration or stored state makes running unsafe. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}
