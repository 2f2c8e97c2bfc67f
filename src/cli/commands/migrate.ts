import type { Command } from 'commander';
import { withServices } from '../run-command.js';

export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (the server also applies them on start)')
    .action(async () => {
      await withServices(async ({ appliedMigrations }) => {
        console.log(appliedMigrations.length === 0 ? 'The store is up to date.' : `Applied: ${appliedMigrations.join(', ')}`);
      });
    });
}
