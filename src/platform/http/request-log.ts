import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One log line per request at info, when it completes, instead of Fastify's
 * two (each line is a write syscall on the hot path). It carries what the
 * incoming line had: method, URL and client address, never headers or
 * bodies. The incoming line stays available at debug level.
 *
 * Fastify serializes every `req` logged through its loggers with its own
 * serializer, which reads the address from `ip` (and writes it as
 * `remoteAddress`): hence `ip` here. request.ip is the client a trusted proxy
 * forwarded for (UGS_TRUST_PROXY), else the connecting address.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: { method: request.method, url: request.url, ip: request.ip } }, 'incoming request');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      req: { method: request.method, url: request.url, ip: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
