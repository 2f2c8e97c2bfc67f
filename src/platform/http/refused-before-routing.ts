import type { FastifyBaseLogger } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './error-handler.js';
import { requestIdFor } from './request-id.js';

/**
 * Answers for requests Node refuses before Fastify sees them: a malformed
 * request, a timeout, an Expect it cannot meet. Each still gets the JSON
 * envelope and an X-Request-Id, like every other answer.
 */

/** An `Expect` the service cannot meet (only 100-continue is): a 400 in the usual envelope. */
export function refuseExpectation(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  const id = requestIdFor(request);
  const body = JSON.stringify(
    errorBody(
      'invalid_request',
      `Unsupported "Expect: ${String(request.headers.expect).slice(0, 100)}"; only "Expect: 100-continue" is supported.`,
      id,
    ),
  );
  response.writeHead(400, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': id,
    connection: 'close',
  });
  response.end(body);
}

/** Requests Node's HTTP parser rejects never reach Fastify; they still get the JSON envelope, an id, and a log line carrying it. */
export function answerMalformedHttp(logger: FastifyBaseLogger): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // A response already went out on this connection (an undecodable URL is answered before its
    // body is read): a second one would be garbage to the client. Close instead, as Node does.
    const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (answered || !socket.writable) {
      socket.destroy();
      return;
    }
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const message = timedOut
      ? 'The request was not received in time; send headers and body without pausing.'
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request headers are too large.'
        : 'The request is not valid HTTP/1.1.';
    const id = randomUUID();
    const body = JSON.stringify(errorBody(timedOut ? 'request_timeout' : 'invalid_request', message, id));
    const status = timedOut ? 408 : 400;
    // The parser's code only: its message and raw packet may hold whatever the client sent.
    logger.info(
      { reqId: id, req: { remoteAddress: socket.remoteAddress }, res: { statusCode: status }, parserError: error.code },
      'request refused by the HTTP parser',
    );
    socket.end(
      `HTTP/1.1 ${timedOut ? '408 Request Timeout' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
