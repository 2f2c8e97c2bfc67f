import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../kernel/errors.js';

/**
 * Percent-encoding that does not decode to UTF-8 (`%FF`, `%C0%AF`) is refused
 * instead of passed on: the query-string parser would keep such a sequence as
 * literal text, so `%FF` and `%25FF` would name the same user group. Only URLs
 * with a `%` pay for the check.
 */
export function refuseMalformedUrl(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const url = request.raw.url ?? '';
    if (url.includes('%') && !decodes(url)) {
      return done(invalidRequest('The request URL has percent-encoding that is not valid UTF-8 (e.g. "%FF"); encode text as UTF-8.'));
    }
    done();
  });
}

function decodes(url: string): boolean {
  try {
    decodeURIComponent(url);
    return true;
  } catch {
    return false;
  }
}
