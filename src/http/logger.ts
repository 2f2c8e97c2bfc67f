import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Secrets never reach the log: Fastify's request serializer omits headers,
 * and these paths catch any that a log call passes by hand.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.token',
  '*.current_token',
  '*.key',
  '*.api_key',
  'token',
  'current_token',
  'key',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
