import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ErrorCode } from '../../kernel/errors.js';
import { redactSecrets } from '../../secrets/secret-redaction.js';
import { codeForClientStatus, ERROR_STATUS } from './error-status.js';
import { BODY_MAX_BYTES } from './json-body-parser.js';
import { describeValidationFailure } from './validation-message.js';

/**
 * The wire envelope of a failure. Messages may echo what the client sent (a path, a field name): never a secret in it.
 * `request_id` repeats the X-Request-Id header, so one line of the body is enough to quote to support.
 */
export function errorBody(code: ErrorCode, message: string, requestId: string) {
  return { success: 0 as const, error: { code, message: redactSecrets(message), request_id: requestId } };
}

/** Fastify's own client errors, reworded to say what to fix. */
const FASTIFY_MESSAGES: Record<string, (request: FastifyRequest) => string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => `The request body is larger than the ${BODY_MAX_BYTES / 1024 / 1024} MiB limit.`,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (request) =>
    `Unsupported Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')}: send a JSON body with "Content-Type: application/json".`,
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'The request body is empty; send a JSON object.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => 'Content-Length does not match the length of the body.',
};

/** Maps anything thrown while handling a request to the wire envelope and one status. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) {
      if (error.code === 'unavailable') request.log.warn({ err: error }, 'store unavailable');
      return sendServiceError(reply, error);
    }
    if (error.validation) {
      return sendServiceError(reply, new ServiceError('invalid_request', describeValidationFailure(error.validation)));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const describe = error.code ? FASTIFY_MESSAGES[error.code] : undefined;
      return sendServiceError(reply, new ServiceError(codeForClientStatus(status), describe ? describe(request) : error.message), status);
    }
    request.log.error({ err: error }, 'request failed');
    return sendServiceError(
      reply,
      new ServiceError('internal', 'The service failed to handle this request; it has been logged. Retry later.'),
    );
  });
}

export function sendServiceError(reply: FastifyReply, error: ServiceError, status = ERROR_STATUS[error.code]): FastifyReply {
  const { retryAfterSeconds, allowedMethods } = error.details;
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  if (allowedMethods !== undefined) reply.header('allow', allowedMethods.join(', '));
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(errorBody(error.code, error.message, reply.request.id));
}
