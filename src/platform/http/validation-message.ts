import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { patternRule } from './patterns.js';

/**
 * Turns Ajv's findings into one sentence that says which field is wrong and
 * how to fix it, e.g. `"name" must NOT have more than 255 characters`.
 */
export function describeValidationFailure(errors: readonly FastifySchemaValidationError[]): string {
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  if (anyOf) {
    const path = anyOf.instancePath;
    const alternatives = errors.filter((e) => e.instancePath === path && e.keyword !== 'anyOf').map(alternative);
    return `${field(path)} ${joinAlternatives([...new Set(alternatives)])}.`;
  }
  const first = errors[0];
  if (!first) return 'The request body is invalid.';
  if (first.keyword === 'required') {
    const missing = String((first.params as { missingProperty?: string }).missingProperty);
    return `${field(`${first.instancePath}/${missing}`)} is required.`;
  }
  if (first.instancePath === '' && first.keyword === 'type') return 'The request body must be a JSON object.';
  if (first.keyword === 'pattern')
    return `${field(first.instancePath)} ${patternRule(String((first.params as { pattern?: string }).pattern))}.`;
  if (first.keyword === 'propertyNames') {
    return `${field(first.instancePath)} keys must be 1 to 255 characters long, without control characters.`;
  }
  if (first.keyword === 'maxProperties') return `${field(first.instancePath)} ${first.message} (entries).`;
  if (first.keyword === 'enum')
    return `${field(first.instancePath)} must be one of ${(first.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}.`;
  return `${field(first.instancePath)} ${first.message}.`;
}

function alternative(error: FastifySchemaValidationError): string {
  if (error.keyword === 'type') return `must be ${(error.params as { type?: string }).type}`;
  if (error.keyword === 'const') return `${ONE_OF}${JSON.stringify((error.params as { allowedValue?: unknown }).allowedValue)}`;
  return error.message ?? 'is invalid';
}

/**
 * A union of literals reads as one list, "must be one of "a", "b"", which says the type too (each literal
 * also fails its `type` when the value is a number, say); other unions list their alternatives.
 */
function joinAlternatives(alternatives: readonly string[]): string {
  const values = alternatives.filter((a) => a.startsWith(ONE_OF)).map((a) => a.slice(ONE_OF.length));
  return values.length > 0 ? `${ONE_OF}${values.join(', ')}` : alternatives.join(', or ');
}

const ONE_OF = 'must be one of ';

/** `/mapping/40` becomes `"mapping.40"`: the field as the caller wrote it. */
function field(instancePath: string): string {
  const path = instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  return path ? `"${path}"` : 'The request body';
}
