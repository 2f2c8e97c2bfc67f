import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/**
 * The path the browser scripts of renewal are served at; the same files ship in the package as
 * user-group-service/embed/page.js and user-group-service/embed/frame.js.
 */
export const EMBED_SCRIPT_PATHS = ['/embed/ugs-embed-page.js', '/embed/ugs-embed-frame.js'] as const;

/** Not versioned in their URL, so kept an hour, then revalidated by ETag. */
const CACHE_CONTROL = 'public, max-age=3600';

/**
 * GET /embed/ugs-embed-page.js (for the customer's page) and /embed/ugs-embed-frame.js (for the dashboard's frame):
 * read once at start, served from memory, with no key. Other origins load them with <script src>, hence
 * Cross-Origin-Resource-Policy: cross-origin.
 */
export function registerEmbedScripts(app: FastifyInstance): void {
  for (const path of EMBED_SCRIPT_PATHS) {
    const body = readFileSync(fileURLToPath(new URL(`../../embed/browser/${path.slice('/embed/'.length)}`, import.meta.url)));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    app.get(path, { config: { rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
      reply
        .header('cache-control', CACHE_CONTROL)
        .header('etag', etag)
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('x-content-type-options', 'nosniff');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(body);
    });
  }
}
