import type { Command } from 'commander';
import cluster from 'node:cluster';
import type { Config, ConfigError } from '../../platform/config.js';
import { limitHeapGrowth } from '../heap-growth.js';
import { CliError, describeStore } from '../run-command.js';

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the HTTP service (what `npm start` runs); stops gracefully on SIGTERM/SIGINT')
    .option('--port <port>', 'port to listen on (default: $PORT or 8080)')
    .option('--host <host>', 'interface to bind (default: $HOST or 127.0.0.1)')
    .action(async (options: { port?: string; host?: string }) => {
      const config = await configWithFlags(options);
      // Workers run this same command (cluster forks with our argv) and take the second branch.
      if (config.workers > 1 && cluster.isPrimary) await (await import('../worker-supervisor.js')).superviseWorkers(config);
      else await serveHttp(config);
    });
}

/** The settings with --port and --host in place of PORT and HOST; a bad flag is named as the flag. */
async function configWithFlags(options: { port?: string; host?: string }): Promise<Config> {
  const flags = { PORT: ['--port', options.port], HOST: ['--host', options.host] } as const;
  const { ConfigError, loadConfig } = await import('../../platform/config.js');
  try {
    return loadConfig({
      ...process.env,
      ...(options.port !== undefined && { PORT: options.port }),
      ...(options.host !== undefined && { HOST: options.host }),
    });
  } catch (error) {
    const setting = error instanceof ConfigError ? error.problem?.setting : undefined;
    if (setting !== 'PORT' && setting !== 'HOST') throw error;
    const [flag, value] = flags[setting];
    if (value === undefined) throw error;
    throw new CliError(`Invalid ${flag} ${JSON.stringify(value)}: ${(error as ConfigError).problem!.reason}`);
  }
}

async function serveHttp(config: Config): Promise<void> {
  limitHeapGrowth();
  // Loaded here, not at the top: every other command (and --help) would pay for importing the HTTP app.
  const [{ startServer }, { stopOnSignals }] = await Promise.all([import('../../app/serving.js'), import('../stop-on-signals.js')]);
  const server = await startServer(config);
  server.app.log.info({ url: server.url, dataDir: config.dataDir, store: describeStore(config) }, 'user group service listening');
  // A worker stops when its primary says so (SIGTERM); Ctrl-C reaches the whole process group.
  stopOnSignals(
    { signals: cluster.isWorker ? ['SIGTERM'] : ['SIGTERM', 'SIGINT'], delayMs: config.shutdownTimeoutMs, log: server.app.log },
    () => server.close(),
  );
}
