import type { FastifyError, FastifyInstance } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';
import { redactSecrets } from '../../secrets/secret-redaction.js';
import { ERROR_STATUS } from '../../platform/http/error-status.js';
import { describeValidationFailure } from '../../platform/http/validation-message.js';

const CSRF_ERRORS = new Set(['FST_CSRF_MISSING_SECRET', 'FST_CSRF_INVALID_TOKEN']);

/**
 * Console failures as a page rather than the API's JSON envelope, with the
 * status the API would give and the message the service gave.
 */
export function installConsoleErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    const session = request.session ?? null;
    if (error instanceof ServiceError) {
      const { retryAfterSeconds } = error.details;
      if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
      if (error.code === 'unavailable') request.log.warn({ err: error }, 'store unavailable');
      return reply
        .code(ERROR_STATUS[error.code])
        .view('error', { title: titleOf(error.code), message: redactSecrets(error.message), session });
    }
    if (CSRF_ERRORS.has(error.code)) {
      return reply.code(403).view('error', {
        title: 'Refused',
        message: "This form's security token is missing or wrong: reload the page and try again.",
        session,
      });
    }
    if (error.validation)
      return reply.code(400).view('error', { title: 'Not valid', message: describeValidationFailure(error.validation), session });
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500)
      return reply.code(status).view('error', { title: 'Not accepted', message: redactSecrets(error.message), session });
    request.log.error({ err: error }, 'console request failed');
    return reply
      .code(500)
      .view('error', { title: 'Failed', message: 'The console failed to handle this request; it has been logged. Retry later.', session });
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).view('error', { title: 'Not found', message: 'There is no such console page.', session: request.session ?? null }),
  );
}

function titleOf(code: ServiceError['code']): string {
  switch (code) {
    case 'forbidden':
      return 'Not allowed';
    case 'not_found':
      return 'Not found';
    case 'rate_limited':
      return 'Too many requests';
    case 'unauthenticated':
      return 'Not signed in';
    default:
      return 'Not done';
  }
}
