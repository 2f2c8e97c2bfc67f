import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../kernel/errors.js';

/**
 * Once shutdown starts, requests that still arrive on kept-alive connections
 * get 503 `unavailable` in the usual envelope (Fastify's built-in answer has
 * its own body), with `Connection: close` so the client reconnects elsewhere.
 * Requests already in flight finish normally, and their answers close the
 * connection too: a kept-alive client would otherwise hold the server open
 * until the shutdown timeout.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new ServiceError('unavailable', 'The server is shutting down; retry the request.'));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
