import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import type { ErrorCode } from '../../kernel/errors.js';
import { ERROR_STATUS, ERROR_WHEN } from './error-status.js';
import { ErrorResponse } from './schemas.js';

/**
 * What a route declares about itself besides its wire schemas, in the shapes
 * @fastify/swagger turns into the OpenAPI document as they are: the error
 * statuses it can answer (each with the envelope, its meaning and an example)
 * and named examples of its bodies.
 */

/** The error envelope, registered once (app.addSchema): the routes refer to it, the document lists it in components.schemas. */
export const ErrorEnvelope = Type.Object(ErrorResponse.properties, { $id: 'ErrorResponse' });
const envelope = Type.Unsafe<Static<typeof ErrorResponse>>({ $ref: 'ErrorResponse#' });

/** What any request can meet besides its route's own answers: a malformed URL (400), a fault (500), shutdown or a store that does not
 * answer (503). */
export const ANY_REQUEST_ERRORS: readonly ErrorCode[] = ['invalid_request', 'internal', 'unavailable'];
/** Reading a body, GET's included: not JSON (400), not all sent in time (408), too large (413), not `application/json` (415). */
export const BODY_ERRORS: readonly ErrorCode[] = ['invalid_request', 'request_timeout', 'payload_too_large', 'unsupported_media_type'];
/** The API key check of every /api route: no or a bad key (401), too many failures from the address or requests for the key (429). */
export const API_KEY_ERRORS: readonly ErrorCode[] = ['unauthenticated', 'rate_limited'];

/** A typical message for each code, the example of its answers (what it means is ERROR_WHEN). */
const EXAMPLE_MESSAGE: Readonly<Record<ErrorCode, string>> = {
  invalid_request: '"name" must NOT have more than 255 characters.',
  unauthenticated: 'Missing "Authorization: Token <API_KEY>" header; create a key with `ugs keys create`.',
  forbidden: 'This API key is read-only; use a read-write key to change user groups.',
  not_found: 'No user group with "user_group_id" "acme" exists in the Customer environment.',
  conflict:
    'User group "acme" cannot be placed under "acme-eu": that is the group itself or one of its descendants, which would make a cycle.',
  method_not_allowed: 'PATCH is not supported on /api/user; use one of: GET, HEAD, PUT, POST, DELETE.',
  request_timeout: 'The request was not received in time; send headers and body without pausing.',
  payload_too_large: 'The request body is larger than the 1 MiB limit.',
  unsupported_media_type: 'Unsupported Content-Type "text/plain": send a JSON body with "Content-Type: application/json".',
  rate_limited: 'This API key made more than 600 requests this minute; retry in 1 minute.',
  unavailable: 'The store is not answering; retry shortly.',
  internal: 'The service failed to handle this request; it has been logged. Retry later.',
};

const REQUEST_ID = {
  type: 'string',
  description: 'The request id (yours, if you sent a sane X-Request-Id); logged with the request.',
} as const;
const RETRY_AFTER = { type: 'integer', minimum: 0, description: 'Seconds to wait before retrying.' } as const;

interface ErrorAnswer {
  description: string;
  headers: Record<string, typeof REQUEST_ID | typeof RETRY_AFTER>;
  content: { 'application/json': { schema: typeof envelope; example: Static<typeof ErrorResponse> } };
}

/**
 * The error answers of a route, one per status: the codes of the groups above
 * that apply to it plus its own. Fastify serializes each with the envelope.
 */
export function errorAnswers(...codes: (ErrorCode | readonly ErrorCode[])[]): Record<number, ErrorAnswer> {
  const unique = [...new Set(codes.flat())].sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b]);
  return Object.fromEntries(
    unique.map((code) => [
      ERROR_STATUS[code],
      {
        description: `\`${code}\`: ${ERROR_WHEN[code]}`,
        headers: { 'X-Request-Id': REQUEST_ID, ...(code === 'rate_limited' && { 'Retry-After': RETRY_AFTER }) },
        content: {
          'application/json': {
            schema: envelope,
            example: { success: 0, error: { code, message: EXAMPLE_MESSAGE[code], request_id: '6f1c2a9e-3b4d-4c8e-9a7f-2d5e8b1c0a43' } },
          },
        },
      } satisfies ErrorAnswer,
    ]),
  );
}

export interface NamedExample {
  summary: string;
  value: unknown;
}

/**
 * A request or success body with its description and named examples
 * (`x-examples`, which @fastify/swagger moves to the media object; Ajv knows
 * the keyword, see app.ts). The schema itself is unchanged for validation and
 * serialization.
 */
export function documented<T extends TSchema>(schema: T, docs: { description?: string; examples?: Record<string, NamedExample> }): T {
  return {
    ...schema,
    ...(docs.description !== undefined && { 'x-response-description': docs.description }),
    ...(docs.examples && { 'x-examples': docs.examples }),
  };
}

type ResponseSchema = { description?: string; headers?: unknown; 'x-response-description'?: string };

/**
 * A HEAD operation as the wire has it: the statuses and headers of the route
 * (a copy of GET's, or HEAD /api/user's own), never a body, so no content and
 * none of the refusals of reading one (HEAD has none to read). Fastify
 * serializes and drops the body itself; the route's schema stays as it is.
 */
export function headOperation(schema: FastifySchema): FastifySchema {
  if (!schema.response) return schema;
  const bodyErrors = new Set<number>([ERROR_STATUS.request_timeout, ERROR_STATUS.payload_too_large, ERROR_STATUS.unsupported_media_type]);
  const responses = Object.entries(schema.response as Record<string, ResponseSchema>)
    .filter(([status]) => !bodyErrors.has(Number(status)))
    .map(([status, response]) => {
      const description = response['x-response-description'] ?? response.description ?? 'Success.';
      return [
        status,
        {
          type: 'null',
          description: /^2/.test(status) ? `${description} Headers only: HEAD answers carry no body.` : description,
          ...(response.headers !== undefined && { headers: response.headers }),
        },
      ];
    });
  return { ...schema, body: undefined, response: Object.fromEntries(responses) };
}

/** Tokens for examples: the format of real ones, visibly not real. */
export const EXAMPLE_TOKEN = 'ugt_EXAMPLE0not0a0real0token0000000000000000000000000';
export const EXAMPLE_NEW_TOKEN = 'ugt_EXAMPLE0the0new0token000000000000000000000000000';
