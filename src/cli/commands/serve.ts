import closeWithGrace from 'close-with-grace';
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { startServer } from '../../http/server.js';

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service (what `npm start` runs); stops gracefully on SIGTERM/SIGINT')
    .option('--port <port>', 'port to listen on (default: $PORT or 8080)')
    .option('--host <host>', 'interface to bind (default: $HOST or 127.0.0.1)')
    .action(async (options: { port?: string; host?: string }) => {
      const config = loadConfig({
        ...process.env,
        ...(options.port !== undefined && { PORT: options.port }),
        ...(options.host !== undefined && { HOST: options.host }),
      });
      const server = await startServer(config);
      server.app.log.info({ url: server.url, dataDir: config.dataDir }, 'user group service listening');
      closeWithGrace({ delay: config.shutdownTimeoutMs }, async ({ signal, err }) => {
        if (err) server.app.log.error({ err }, 'shutting down after an uncaught error');
        else server.app.log.info({ signal }, 'shutting down: finishing in-flight requests');
        await server.close();
      });
    });
}
