#!/usr/bin/env node
import { Command } from 'commander';
import { auditCommand } from './commands/audit.js';
import { configCommand } from './commands/config.js';
import { keysCommand } from './commands/keys.js';
import { migrateCommand } from './commands/migrate.js';
import { secretCommand } from './commands/secret.js';
import { serveCommand } from './commands/serve.js';
import { signingKeysCommand } from './commands/signing-keys.js';
import { transferCommands } from './commands/transfer.js';
import { webhooksCommand } from './commands/webhooks.js';
import { CliError, reportFailure } from './run-command.js';
import { unsupportedNodeReason } from './supported-node.js';

const program = new Command()
  .name('ugs')
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

const unsupported = unsupportedNodeReason();
if (unsupported) reportFailure(new CliError(unsupported));
else program.parseAsync(process.argv).catch(reportFailure);
