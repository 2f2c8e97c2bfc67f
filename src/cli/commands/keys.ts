import { Option, type Command } from 'commander';
import { ACCESS_LEVELS, apiKeyFormat, isApiKeyId, type Access, type ApiKeyRecord } from '../../api-keys/api-key.js';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import type { CliOutput } from '../cli-output.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { isoTime, isoTimeOr } from '../../platform/iso-time.js';

/** The JSON form of a key for `keys list --json`; never the key or its hash. */
function keyView(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    environment: key.environment,
    access: key.access,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
  };
}

export function keysCommand(program: Command, output: CliOutput): void {
  const keys = program.command('keys').description('create, list and revoke API keys');

  keys
    .command('create')
    .description('create an API key; the key itself is the last line of output and is shown only once')
    .addOption(
      new Option('--environment <environment>', 'environment of the groups the key sees and creates')
        .choices(ENVIRONMENTS)
        .default('Customer'),
    )
    .addOption(
      new Option(
        '--access <access>',
        'read-write; read-only (reads existing groups, never changes them); embed (only mints and ends embed sessions); dashboard (the dashboard layer’s data router: reads data sources with their passwords and the revocation feed, nothing else)',
      )
        .choices(ACCESS_LEVELS)
        .default('read-write'),
    )
    .addOption(new Option('--read-only', 'the same as --access read-only').conflicts('access'))
    .option('--name <text>', 'a label to recognise the key by')
    .action(async (options: { environment: Environment; access: Access; readOnly?: boolean; name?: string }) => {
      await withServices(
        async ({ apiKeys }) => {
          const { record, key } = await apiKeys.create({
            environment: options.environment,
            access: options.readOnly ? 'read-only' : options.access,
            name: options.name ?? null,
          });
          output.log(
            `Created ${record.access === 'embed' ? 'an' : 'a'} ${record.access} API key for the ${record.environment} environment${record.name ? ` (${record.name})` : ''}.`,
          );
          output.log('Store the key now: it cannot be shown again. Send it as "Authorization: Token <key>".');
          // The id just before the key, the key last: `tail -n 1` captures the key alone.
          output.log(`Key id (for \`ugs keys list\` and \`ugs keys revoke\`): ${record.id}`);
          output.log(key);
        },
        output,
        { mayCreate: true },
      );
    });

  keys
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--json', 'print a JSON array')
    .action(async (options: { json?: boolean }) => {
      await withServices(async ({ apiKeys }) => {
        const all = (await apiKeys.list()).map(keyView);
        if (options.json) return output.log(JSON.stringify(all, null, 2));
        if (all.length === 0) return output.log('No API keys yet: create one with `ugs keys create`.');
        printTable(
          all.map((k) => ({
            id: k.id,
            name: k.name ?? '',
            environment: k.environment,
            access: k.access,
            created: isoTime(k.created_at),
            'last used': isoTimeOr(k.last_used_at, 'never'),
            revoked: isoTimeOr(k.revoked_at, ''),
          })),
          output,
        );
      }, output);
    });

  keys
    .command('revoke')
    .description('revoke an API key; it stops working at once, also on a running server')
    .argument('<id>', 'the key id shown by `ugs keys list` (the key itself works too; it is never printed)')
    .action(async (given: string) => {
      await withServices(async ({ apiKeys }) => {
        const id = await apiKeys.revokeByIdOrKey(given);
        // Only a value shaped as a key id is echoed: anything else may be a secret pasted by mistake.
        if (id === null && given.startsWith(apiKeyFormat.prefix))
          throw new CliError('No API key matches the key given (not shown); see `ugs keys list`.');
        if (id === null && isApiKeyId(given)) throw new CliError(`No API key with id ${given}; see \`ugs keys list\`.`);
        if (id === null)
          throw new CliError(
            'No API key with the id given (not shown: it is not shaped as a key id, key_ and 16 hex digits); see `ugs keys list`.',
          );
        output.log(`Revoked ${id}.`);
      }, output);
    });
}
