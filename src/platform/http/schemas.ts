import { Type, type Static } from '@sinclair/typebox';
import { ENVIRONMENTS } from '../../kernel/environment.js';
import { ERROR_CODES, type ErrorCode } from '../../kernel/errors.js';
import { PATTERNS } from './patterns.js';

/**
 * The wire's shared parts, described once: these schemas validate requests, serialize responses and give the
 * handlers their types. Each concept keeps its own beside its routes (user groups: user-groups/http/user-group-schemas.ts).
 */

/** A cursor the service sealed (position-seal.ts), passed back as `after`. */
export const sealedCursor = (description: string) => Type.String({ pattern: PATTERNS.sealedCursor.pattern, description });

export const EnvironmentTag = Type.Union(ENVIRONMENTS.map((e) => Type.Literal(e)));

export const ErrorResponse = Type.Object({
  success: Type.Literal(0),
  error: Type.Object({
    // An enum, not a union of literals: fast-json-stringify builds an Ajv instance for every serializer holding an anyOf.
    code: Type.Unsafe<ErrorCode>({ type: 'string', enum: [...ERROR_CODES] }),
    message: Type.String(),
    request_id: Type.String({ description: 'The X-Request-Id of this answer, to quote when asking for help.' }),
  }),
});

export const StatusResponse = Type.Object({ success: Type.Literal(1), status: Type.String() });

export type ErrorResponse = Static<typeof ErrorResponse>;
