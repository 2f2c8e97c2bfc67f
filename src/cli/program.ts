import { Command, CommanderError } from 'commander';
import { basename } from 'node:path';
import { packageManifest } from '../platform/package-root.js';
import { cliOutput, type CliStream, type CliStreams } from './cli-output.js';
import { auditCommand } from './commands/audit.js';
import { configCommand } from './commands/config.js';
import { customersCommand } from './commands/customers.js';
import { dataSourcesCommand } from './commands/data-sources.js';
import { groupTagsCommand } from './commands/group-tags.js';
import { groupsCommand } from './commands/groups.js';
import { isolationCheckCommand } from './commands/isolation-check.js';
import { keysCommand } from './commands/keys.js';
import { metabaseCommand } from './commands/metabase.js';
import { migrateCommand } from './commands/migrate.js';
import { policiesCommand } from './commands/policies.js';
import { secretCommand } from './commands/secret.js';
import { serveCommand } from './commands/serve.js';
import { signingKeysCommand } from './commands/signing-keys.js';
import { transferCommands } from './commands/transfer.js';
import { usageCommand } from './commands/usage.js';
import { viewersCommand } from './commands/viewers.js';
import { webhooksCommand } from './commands/webhooks.js';
import { reportFailure } from './run-command.js';

/**
 * The name the help shows: `ugs` where it was run by that name (`npx ugs` in a clone), else the package's own,
 * `user-group-service`, the name that works outside a clone too (`ugs` is another package on the npm registry).
 */
export function commandName(script: string | undefined): string {
  return script !== undefined && basename(script) === 'ugs' ? 'ugs' : 'user-group-service';
}

/**
 * Runs one `ugs` command line, writing to `streams`, and resolves with its exit
 * code; it never ends the process, so tests run it in process. Loaded by
 * main.ts only once the Node version is known to run it. `ugs serve` resolves
 * once it listens and keeps the process alive until a signal stops it.
 */
export async function runProgram(argv: string[], streams: CliStreams): Promise<number> {
  const output = cliOutput(streams);
  // A terminal's width, else commander's own default.
  const helpWidth = (stream: CliStream) => (stream.isTTY ? stream.columns : undefined) ?? 80;
  const program = new Command()
    .name(commandName(argv[1]))
    .version(packageManifest().version, '-V, --version', 'print the version')
    .description(
      'User group service: ugs in its checkout, user-group-service anywhere (npx --prefix CHECKOUT user-group-service). Settings come from the environment: PORT, HOST, UGS_DATA_DIR, UGS_SECRET, DATABASE_URL, LOG_LEVEL (ugs config lists them all; docs/settings.md).',
    )
    // A usage error is commander's one line naming what is wrong, then a pointer to the help: the whole help after
    // it buried that line (`ugs viewers list` without --group printed 17 lines, the error first; issue 43).
    .showHelpAfterError('(add --help for the options)')
    // Before the commands are added, which inherit both: commander throws where it would call process.exit.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => output.stdout.write(text),
      writeErr: (text) => output.stderr.write(text),
      getOutHelpWidth: () => helpWidth(output.stdout),
      getErrHelpWidth: () => helpWidth(output.stderr),
    });

  serveCommand(program);
  keysCommand(program, output);
  groupsCommand(program, output);
  migrateCommand(program, output);
  transferCommands(program, output);
  auditCommand(program, output);
  secretCommand(program, output);
  signingKeysCommand(program, output);
  webhooksCommand(program, output);
  dataSourcesCommand(program, output);
  metabaseCommand(program, output);
  customersCommand(program, output);
  groupTagsCommand(program, output);
  viewersCommand(program, output);
  policiesCommand(program, output);
  isolationCheckCommand(program, output);
  usageCommand(program, output);
  configCommand(program, output);

  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    // Help, --version or a usage error: commander has already written what it had to say.
    if (error instanceof CommanderError) return error.exitCode;
    return reportFailure(error, output);
  }
}
