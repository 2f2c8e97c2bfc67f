import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * For routes that take only a query string and path parameters: these arrive
 * as text, so they are validated with type coercion ("20" becomes 20). Routes
 * with a JSON body keep the app's strict validator, which never coerces.
 */
const coercing = new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });

export const queryValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema }) =>
  coercing.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
