import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's `X-Request-Id` when it is a sane token, so logs join up across services; else a new UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && ACCEPTABLE.test(given) ? given : randomUUID();
}
