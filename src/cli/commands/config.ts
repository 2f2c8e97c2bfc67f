import type { Command } from 'commander';
import type { CliOutput } from '../cli-output.js';
import { printTable } from '../print-table.js';

export function configCommand(program: Command, output: CliOutput): void {
  program
    .command('config')
    .description(
      'print the effective configuration: every setting, its value (secrets masked) and whether it comes from the environment or the default',
    )
    .option('--json', 'print a JSON array of {name, value, source, description}')
    .action(async (options: { json?: boolean }) => {
      // Only reads the environment: never opens the store, so it works without one.
      const settings = (await import('../../platform/config.js')).effectiveConfig();
      if (options.json) return output.log(JSON.stringify(settings, null, 2));
      printTable(
        settings.map((s) => ({
          name: s.name,
          value: s.value === null ? '(unset)' : String(s.value),
          source: s.source,
          description: s.description,
        })),
        output,
      );
    });
}
