import type { Command } from 'commander';
import { rotateServerSecret } from '../../app/rotate-server-secret.js';
import type { CliOutput } from '../cli-output.js';
import { CliError, withServices } from '../run-command.js';

export function secretCommand(program: Command, output: CliOutput): void {
  const secret = program.command('secret').description('manage the server secret that encrypts stored tokens');
  secret
    .command('rotate')
    .description(
      'move every stored token to a new server secret without stopping reads. With UGS_SECRET: run with UGS_SECRET=<new> and ' +
        'UGS_PREVIOUS_SECRET=<old>, the same as every running replica. Without: generates a new secret in the data dir.',
    )
    .option(
      '--grace-ms <ms>',
      'how long at most to wait for every running server to switch to the new secret (they check every 5 s)',
      '12000',
    )
    .action(async (options: { graceMs: string }) => {
      const graceMs = Number(options.graceMs);
      if (!Number.isInteger(graceMs) || graceMs < 0) throw new CliError('--grace-ms must be a whole number of milliseconds.');
      await withServices(async (services, config) => {
        const result = await rotateServerSecret(services, config, graceMs);
        output.log(`Re-encrypted ${result.resealed} of ${result.scanned} user group tokens under the new server secret.`);
        output.log(
          result.mode === 'environment'
            ? 'UGS_PREVIOUS_SECRET is no longer needed: remove it from every replica.'
            : `The previous secret was deleted from ${config.dataDir}; back up the new server-secret file.`,
        );
      }, output);
    });
}
