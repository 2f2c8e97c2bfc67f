import Fastify from 'fastify';
import { createLogger } from '../src/platform/http/logger.js';
import { requestIdFor } from '../src/platform/http/request-id.js';
import { OneLinePerRequest } from '../src/platform/http/request-log.js';
import { announcePort, readStdin, type CannedReply } from './canned-reply.js';

/**
 * What the framework alone costs: Fastify, with the service's GET-body
 * handling and its access log (the same logger, request ids and one line per
 * request to standard output), answering every request with the exact bytes
 * the ceiling answers (the service's own answer to a sample request) and doing
 * nothing else (no auth, no store, no crypto). Its ratio to the ceiling bounds
 * what any service built this way can reach on this machine.
 * Input on stdin: {"status":200,"headers":{...},"body":"..."}.
 */
const reply = JSON.parse(await readStdin()) as CannedReply;

const app = Fastify({
  loggerInstance: createLogger('info'),
  logController: new OneLinePerRequest(),
  genReqId: requestIdFor,
  requestIdHeader: false,
  keepAliveTimeout: 72_000,
});
app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
/**
 * The next turn of the event loop's check phase, shared by every request read before it: the service answers its
 * lookups per turn (src/store/per-turn-batch.ts), so its answers go out back to back after the poll phase, which
 * costs less per answer than writing each as its request is read. The floor answers the same way, or the service
 * would beat it by that alone.
 */
let turn: Promise<void> | undefined;
const nextTurn = () =>
  (turn ??= new Promise((resolve) =>
    setImmediate(() => {
      turn = undefined;
      resolve();
    }),
  ));

app.route({
  method: ['GET', 'PUT', 'POST'],
  url: '/api/user',
  // A string with its content type set goes out as it is, as the service's serialized answer does.
  handler: async (_request, response) => {
    await nextTurn();
    return response.code(reply.status).headers(reply.headers).send(reply.body);
  },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
announcePort(typeof address === 'object' && address ? address.port : 0);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
