import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../kernel/errors.js';

/** A property value of 64 KiB, percent-encoded, with room for the other fields. */
const FORM_BODY_LIMIT = 512 * 1024;

/**
 * HTML forms post application/x-www-form-urlencoded; Fastify parses JSON only.
 * Installed in the console's own context, so the API still refuses form bodies.
 * A field given twice keeps its first value.
 */
export function installFormBodyParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      try {
        const fields: Record<string, string> = {};
        for (const [name, value] of new URLSearchParams(body as string)) if (!(name in fields)) fields[name] = value;
        done(null, fields);
      } catch {
        done(invalidRequest('The form body could not be read.'), undefined);
      }
    },
  );
}

/** The form's fields as strings (the parser above made them); a missing one is ''. */
export function formField(body: unknown, name: string): string {
  const value = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}
