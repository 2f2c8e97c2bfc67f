import type { Command } from 'commander';
import type { CliOutput } from '../cli-output.js';
import { withServices } from '../run-command.js';

export function migrateCommand(program: Command, output: CliOutput): void {
  program
    .command('migrate')
    .description('apply pending database migrations (the server also applies them on start)')
    .option(
      '--create',
      'SQLite: create a new, empty store even though this data dir held one whose database file is missing (or take the database found there as its store); without it such a data dir is refused',
    )
    .action(async (options: { create?: boolean }) => {
      await withServices(
        async ({ storeStatus: { appliedMigrations } }) => {
          output.log(appliedMigrations.length === 0 ? 'The store is up to date.' : `Applied: ${appliedMigrations.join(', ')}`);
        },
        output,
        { mayCreate: true, createStore: options.create === true },
      );
    });
}
