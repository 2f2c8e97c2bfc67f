import { ConfigError, loadConfig, type Config } from '../config.js';
import { ServiceError, StartupError } from '../domain/errors.js';
import { openServices, type Services } from '../services.js';

/** A failure worth one line on stderr, not a stack trace. */
export class CliError extends Error {
  override name = 'CliError';
}

/** Prints what went wrong in one line and sets a failing exit code. */
export function reportFailure(error: unknown): void {
  const expected = error instanceof CliError || error instanceof ConfigError || error instanceof StartupError || error instanceof ServiceError;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (expected) console.error(`ugs: ${(error as Error).message}`);
  else if (code === 'EADDRINUSE') console.error(`ugs: ${(error as Error).message}: another process is using the port; set PORT to a free one.`);
  else if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL') console.error(`ugs: cannot listen: ${(error as Error).message}; set HOST to an address of this machine.`);
  else console.error(error);
  process.exitCode = 1;
}

/**
 * Runs `body` with the configured services open, closing them afterwards
 * whatever happens. `createStore`: see `ugs migrate --create`.
 */
export async function withServices<T>(body: (services: Services, config: Config) => Promise<T>, options: { createStore?: boolean } = {}): Promise<T> {
  const config = loadConfig();
  const services = await openServices({ ...config, ...options });
  try {
    return await body(services, config);
  } finally {
    await services.close();
  }
}
