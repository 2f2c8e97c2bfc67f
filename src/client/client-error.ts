import type { ErrorCode } from './wire-types.js';

/** A failure the service answered: its HTTP status and error code, to branch on (never on the message). */
export class UserGroupServiceError extends Error {
  override name = 'UserGroupServiceError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'network_error',
    message: string,
    /** The service's request id (`error.request_id`, else the X-Request-Id header), to quote when asking for help. */
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}
