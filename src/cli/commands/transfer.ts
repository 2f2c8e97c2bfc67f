import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { CliOutput } from '../cli-output.js';
import { CliError, describeStore, withServices } from '../run-command.js';

export function transferCommands(program: Command, output: CliOutput): void {
  program
    .command('export')
    .description(
      'write every group tag, user group (with its Customer API fields), API key, data source and Metabase settings (hashes and ciphertexts only) and the audit log as JSON lines, to move to another store',
    )
    .option('--output <file>', 'write to this file instead of stdout (created with mode 0600)')
    .option(
      '--without-data-source-passwords',
      'leave data source passwords out, even sealed: they are imported without one (password_set false), to be set again',
    )
    .action(async (options: { output?: string; withoutDataSourcePasswords?: boolean }) => {
      await withServices(async ({ dataTransfer }) => {
        const out = options.output ? createWriteStream(options.output, { mode: 0o600, flags: 'wx' }) : output.stdout;
        for await (const line of dataTransfer.exportLines({ dataSourcePasswords: !options.withoutDataSourcePasswords })) {
          if (!out.write(line)) await once(out, 'drain');
        }
        if (out !== output.stdout)
          await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      }, output);
    });

  program
    .command('import')
    .description('load an export into this empty store (SQLite or PostgreSQL), all or nothing; needs the same server secret as the source')
    .argument('<file>', 'a file written by `ugs export`')
    .action(async (file: string) => {
      if (!existsSync(file)) throw new CliError(`No such file: ${file}`);
      const config = (await import('../../platform/config.js')).loadConfig();
      output.error(`ugs: store: ${describeStore(config)}`);
      const { importIntoStore } = await import('../../app/import-into-store.js');
      const summary = await importIntoStore(config, () => createInterface({ input: createReadStream(file), crlfDelay: Infinity }));
      output.log(
        `Imported ${summary.groupTags} group tags, ${summary.userGroups} user groups, ${summary.apiKeys} API keys, ${summary.dataSources} data sources, ${summary.metabaseSettings} Metabase settings and ${summary.auditRecords} audit records.`,
      );
      const leftOut = summary.dataSourcePasswordsLeftOut;
      if (leftOut > 0)
        output.log(
          `${leftOut === 1 ? '1 data source was' : `${leftOut} data sources were`} exported without ${leftOut === 1 ? 'its password' : 'their passwords'}: set each again with \`ugs data-sources update ID --password-stdin\` (\`ugs data-sources list\` shows which: PASSWORD none).`,
        );
    });
}
