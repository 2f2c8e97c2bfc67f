import type { Config } from '../platform/config.js';
import { ServiceError, StartupError } from '../kernel/errors.js';
import { maskDatabaseUrl } from '../secrets/secret-redaction.js';
import type { Core } from '../app/core.js';
import type { CliOutput } from './cli-output.js';

/** A failure worth one line on stderr, not a stack trace; the process exits with `exitCode` (1 unless a command says otherwise). */
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A failure a person can fix, told in one line: a command's own, the store's at start, or the domain's. */
export function isExpectedFailure(error: unknown): boolean {
  return error instanceof CliError || error instanceof StartupError || error instanceof ServiceError;
}

/** Prints what went wrong in one line; returns the exit code. */
export function reportFailure(error: unknown, output: Pick<CliOutput, 'error'>): number {
  const expected = isExpectedFailure(error);
  const code = (error as NodeJS.ErrnoException)?.code;
  if (expected) output.error(`ugs: ${(error as Error).message}`);
  else if (code === 'EADDRINUSE')
    output.error(`ugs: ${(error as Error).message}: another process is using the port; set PORT to a free one.`);
  else if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL')
    output.error(`ugs: cannot listen: ${(error as Error).message}; set HOST to an address of this machine.`);
  else output.error(error);
  return error instanceof CliError ? error.exitCode : 1;
}

export interface StoreUse {
  /**
   * Make the store where there is none yet: only the commands a first use
   * begins with (`ugs keys create`, `ugs migrate`). Every other command refuses
   * a missing store in one line and creates nothing, since a missing store
   * almost always means the wrong UGS_DATA_DIR or DATABASE_URL.
   */
  mayCreate?: boolean;
  /** See `ugs migrate --create`. */
  createStore?: boolean;
}

/**
 * Runs `body` with the configured core open (the store and the domain
 * services: nothing in the background), closing it afterwards whatever
 * happens. Says on stderr, in one line, which store it opened, so a command
 * run against another store than the server's is noticed.
 */
export async function withServices<T>(
  body: (core: Core, config: Config) => Promise<T>,
  output: Pick<CliOutput, 'error'>,
  use: StoreUse = {},
): Promise<T> {
  // Loaded on use: `ugs --help` reads no settings (TypeBox), and it, `ugs config` and the refusals before a store is opened import no store
  // driver.
  const config = (await import('../platform/config.js')).loadConfig();
  const { openCore } = await import('../app/core.js');
  const core = await openCore({ ...config, createStore: use.createStore, mustExist: use.mayCreate !== true && use.createStore !== true });
  try {
    output.error(`ugs: store: ${describeStore(config)}${core.storeStatus.created ? ' (a new, empty store, created just now)' : ''}`);
    return await body(core, config);
  } finally {
    await core.close();
  }
}

/** Where the configured store is, its password hidden; with PostgreSQL and no UGS_SECRET, where the server secret is too. */
export function describeStore(config: Pick<Config, 'dataDir' | 'postgres' | 'secret'>): string {
  if (config.postgres === undefined) return `SQLite in ${config.dataDir}`;
  const secret = config.secret === undefined ? `, server secret in ${config.dataDir}` : '';
  return `PostgreSQL ${maskDatabaseUrl(config.postgres.url)}${secret}`;
}
