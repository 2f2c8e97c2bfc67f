import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** Assets change only with a release, whose pages name them with a new ?v=, so browsers may keep them a year. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

const require = createRequire(import.meta.url);

/** What the console's pages load: htmx from its package (no CDN), and the console's own script and style sheet. */
const ASSETS: Record<string, { path: string; type: string }> = {
  'htmx.min.js': { path: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'console.js': { path: fileURLToPath(new URL('../assets/console.js', import.meta.url)), type: 'text/javascript; charset=utf-8' },
  'console.css': { path: fileURLToPath(new URL('../assets/console.css', import.meta.url)), type: 'text/css; charset=utf-8' },
};

/** GET /console/assets/<name>: read once at start, served from memory. */
export function registerConsoleAssets(app: FastifyInstance): void {
  const loaded = new Map(Object.entries(ASSETS).map(([name, asset]) => [name, { body: readFileSync(asset.path), type: asset.type }]));
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { config: { consolePublic: true, rateLimit: false }, schema: { hide: true } },
    async (request, reply) => {
      const asset = loaded.get(request.params.name);
      if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('No such asset.');
      return reply.header('cache-control', CACHE_CONTROL).type(asset.type).send(asset.body);
    },
  );
}
