import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Socket } from 'node:net';
import { LIMITS } from '../domain/user-group.js';
import type { Services } from '../services.js';
import { invalidRequest } from '../domain/errors.js';
import { errorBody, installErrorHandler, sendServiceError } from './error-handler.js';
import { installJsonBodyParser } from './json-body-parser.js';
import { installMethodNotAllowed } from './method-not-allowed.js';
import { refuseWhileClosing } from './refuse-while-closing.js';
import { requestIdFor } from './request-id.js';
import { registerHealth } from './routes/health.js';
import { userGroupRoutes } from './routes/user-group-routes.js';
import type { TypedApp } from './typed-app.js';

export interface AppOptions {
  logger: FastifyBaseLogger;
}

/** The HTTP application over already-opened services; listening is the caller's business. */
export async function buildApp(services: Services, options: AppOptions): Promise<TypedApp> {
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: requestIdFor,
    requestIdHeader: false,
    exposeHeadRoutes: false,
    bodyLimit: LIMITS.bodyMaxBytes,
    // Wrong types are errors, never silently coerced ("123" is not 123).
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    clientErrorHandler: answerMalformedHttp,
    return503OnClosing: false,
    // Failures before routing (an undecodable URL, say) still get the envelope.
    frameworkErrors: (error, _request, reply) => sendServiceError(reply, invalidRequest(`The request URL is not valid: ${error.message}`)),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The spec sends JSON bodies with GET; Fastify ignores them unless told otherwise.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  installJsonBodyParser(app);
  installErrorHandler(app);
  installMethodNotAllowed(app);
  refuseWhileClosing(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  registerHealth(app, services.store);
  await app.register(userGroupRoutes, { services });
  return app;
}

/** Requests Node's HTTP parser rejects never reach Fastify; they still get the JSON envelope. */
function answerMalformedHttp(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    errorBody('invalid_request', tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP/1.1.'),
  );
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
