import Fastify from 'fastify';
import pino from 'pino';
import { announcePort, readStdin, type CannedReply } from './canned-reply.js';

/**
 * What the framework alone costs: Fastify, with the service's GET-body
 * handling and one pino line per request to standard output, answering every
 * request with fixed bytes and doing nothing else (no auth, no store, no
 * crypto). Its ratio to the ceiling bounds what any service built this way
 * can reach on this machine. Input on stdin: {"status":200,"headers":{...},"body":"..."}.
 */
const reply = JSON.parse(await readStdin()) as CannedReply;

const app = Fastify({ loggerInstance: pino({ level: 'info' }), disableRequestLogging: true, keepAliveTimeout: 72_000 });
app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
app.addHook('onResponse', (request, reply, done) => {
  request.log.info(
    { req: { method: request.method, url: request.url }, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime },
    'request completed',
  );
  done();
});
app.route({
  method: ['GET', 'PUT', 'POST'],
  url: '/api/user',
  handler: async (_request, response) => response.code(reply.status).headers(reply.headers).send(reply.body),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
announcePort(typeof address === 'object' && address ? address.port : 0);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
