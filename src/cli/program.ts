import { Command } from 'commander';
import { packageManifest } from '../package-root.js';
import { auditCommand } from './commands/audit.js';
import { configCommand } from './commands/config.js';
import { keysCommand } from './commands/keys.js';
import { migrateCommand } from './commands/migrate.js';
import { secretCommand } from './commands/secret.js';
import { serveCommand } from './commands/serve.js';
import { signingKeysCommand } from './commands/signing-keys.js';
import { transferCommands } from './commands/transfer.js';
import { webhooksCommand } from './commands/webhooks.js';
import { reportFailure } from './run-command.js';

/** Every `ugs` command; loaded by main.ts only once the Node version is known to run it. */
export async function runProgram(argv: string[]): Promise<void> {
  const program = new Command()
    .name('ugs')
    .version(packageManifest().version, '-V, --version', 'print the version')
    .description('User group service. Settings come from the environment: PORT, HOST, UGS_DATA_DIR, UGS_SECRET, DATABASE_URL, LOG_LEVEL (see the README).')
    .showHelpAfterError();

  serveCommand(program);
  keysCommand(program);
  migrateCommand(program);
  transferCommands(program);
  auditCommand(program);
  secretCommand(program);
  signingKeysCommand(program);
  webhooksCommand(program);
  configCommand(program);

  await program.parseAsync(argv).catch(reportFailure);
}
