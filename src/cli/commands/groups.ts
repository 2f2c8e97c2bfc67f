import { Option, type Command } from 'commander';
import type { Core } from '../../app/core.js';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { ServiceError } from '../../kernel/errors.js';
import { isoTime } from '../../platform/iso-time.js';
import { detailView, itemView } from '../../user-groups/http/user-group-view.js';
import type { UserGroupDetail, UserGroupSummary } from '../../user-groups/user-group.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import type { GroupOptions } from './group-input.js';

/** GET /api/user_groups' largest page. */
const PAGE_MAX = 100;

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment whose groups these are').choices(ENVIRONMENTS).default('Customer');

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new CliError(`--limit must be a positive whole number, not ${JSON.stringify(text)}.`);
  return value;
}

/** Where the new token is read: no `ugs` command prints a group's token (stdout ends up in terminals, logs and tickets). */
const TOKEN_IS_READ_THROUGH_THE_API =
  "The token is not printed (no ugs command prints a group's token): GET /api/user answers it to a key of the environment, and the console reveals it on the group's page.";

/**
 * The environment's groups, newest first: every one, a page after another, or the first `limit`; `more` tells
 * whether others were left out.
 */
async function listGroups(
  core: Core,
  environment: Environment,
  filter: { prefix?: string; parent?: string },
  limit: number | undefined,
): Promise<{ groups: UserGroupSummary[]; more: boolean }> {
  const groups: UserGroupSummary[] = [];
  let cursor: string | undefined;
  for (;;) {
    const want = Math.min(PAGE_MAX, limit === undefined ? Infinity : limit - groups.length);
    const page = await core.userGroups.list(operator(environment), { limit: want, cursor, ...filter });
    groups.push(...page.groups);
    if (page.nextCursor === null) return { groups, more: false };
    if (limit !== undefined && groups.length >= limit) return { groups, more: true };
    cursor = page.nextCursor;
  }
}

function row(group: UserGroupSummary): Record<string, string> {
  return {
    user_group_id: group.providedId,
    team_id: String(group.teamId),
    name: group.name,
    parent: group.parentId ?? '',
    created: isoTime(group.createdAt),
    updated: isoTime(group.updatedAt),
  };
}

const jsonOrNone = (value: unknown) => (value === null ? 'none' : JSON.stringify(value));

/** What `show` prints: one field a line, name then value; never the token. */
function printGroup(detail: UserGroupDetail, output: CliOutput): void {
  const { group } = detail;
  const fields: [string, string][] = [
    ['user_group_id', group.providedId],
    ['team_id', String(group.teamId)],
    ['name', group.name],
    ['environment', group.environment],
    ['parent', group.parentId ?? 'none (a root)'],
    ['ancestors', detail.ancestors.length === 0 ? 'none' : detail.ancestors.join(' > ')],
    ['created', isoTime(group.createdAt)],
    ['updated', isoTime(group.updatedAt)],
    ['properties', jsonOrNone(group.properties)],
    ['effective_properties', jsonOrNone(detail.effectiveProperties)],
    ['mapping', jsonOrNone(group.mapping)],
    ['effective_mapping', jsonOrNone(detail.effectiveMapping)],
    ...detail.resolvedMapping.map((entry): [string, string] => [
      `schema ${entry.schema}`,
      `${JSON.stringify(entry.value)} from ${entry.from}: ${entry.dataSource ? `data source ${entry.dataSource.id} (${entry.dataSource.name})` : 'no data source of the environment'}`,
    ]),
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  for (const [name, value] of fields) output.log(`${name.padEnd(width)}  ${value}`);
}

/** After a write: the group as `show` prints it, or with --json as GET /api/user_groups/{id} answers it. */
async function printWritten(core: Core, environment: Environment, userGroupId: string, json: boolean | undefined, output: CliOutput) {
  const detail = await core.userGroups.get(operator(environment), userGroupId);
  if (json) output.log(JSON.stringify(detailView(detail), null, 2));
  else printGroup(detail, output);
}

const input = () => import('./group-input.js');

export function groupsCommand(program: Command, output: CliOutput): void {
  const groups = program
    .command('groups')
    .description(
      'the user groups (the same as /api/user and /api/user_groups): list, show, create, update, rotate a token, delete; never shows a token',
    );

  groups
    .command('list')
    .description("list the environment's groups, newest first: user_group_id, team_id, name, parent, created, updated")
    .option('--prefix <text>', "only the groups whose user_group_id or name starts with this (as GET /api/user_groups' q)")
    .option('--parent <user_group_id>', 'only the children of this group')
    .option('--limit <n>', 'only the n newest (default: every group, read page by page)', positiveInteger)
    .addOption(environmentOption())
    .option('--json', 'print a JSON array, each group as GET /api/user_groups lists it (no token)')
    .action(async (options: { prefix?: string; parent?: string; limit?: number; environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const filter = { prefix: options.prefix, parent: options.parent };
        const { groups: found, more } = await listGroups(core, options.environment, filter, options.limit);
        if (options.json) output.log(JSON.stringify(found.map(itemView), null, 2));
        else if (found.length === 0)
          output.log(
            options.prefix === undefined && options.parent === undefined
              ? `No user groups in ${options.environment} yet: create one with \`ugs groups create ID --name NAME\`.`
              : `No user groups in ${options.environment} match.`,
          );
        else printTable(found.map(row), output);
        // On stderr: stdout stays the groups alone (a JSON array stays parseable).
        if (more) output.error(`ugs: more groups match in ${options.environment}: leave out --limit to list every one.`);
      }, output);
    });

  groups
    .command('show')
    .description(
      'show one group: team_id, parent and ancestors, times, its own and effective properties and mapping, each schema resolved to a data source; never its token',
    )
    .argument('<user_group_id>', "the group's user_group_id")
    .addOption(environmentOption())
    .option('--json', 'print it as GET /api/user_groups/{user_group_id} answers it (no token)')
    .action(async (userGroupId: string, options: { environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const detail = await core.userGroups.get(operator(options.environment), userGroupId);
        if (options.json) return output.log(JSON.stringify(detailView(detail), null, 2));
        printGroup(detail, output);
      }, output);
    });

  groups
    .command('create')
    .description(
      'create a group as GET /api/user does (the same checks); refused when the environment has one with that id. Audited under the key id cli, with a user_group.created event. Never prints the token',
    )
    .argument('<user_group_id>', "the group's id in your own database")
    .requiredOption('--name <name>', 'its display name')
    .option('--parent <user_group_id>', 'place it under this group of the same environment')
    .option('--properties <json>', 'a JSON object: its properties, e.g. \'{"region":"eu"}\'')
    .option('--mapping <json>', 'a JSON object: schema id to data source, e.g. \'{"40":"213"}\'')
    .addOption(environmentOption())
    .option('--json', 'print it as GET /api/user_groups/{user_group_id} answers it (no token)')
    .action(async (userGroupId: string, options: GroupOptions & { environment: Environment; json?: boolean }) => {
      const wanted = (await input()).createInput(userGroupId, options);
      await withServices(async (core) => {
        const { created } = await core.userGroups.getOrCreate(operator(options.environment), wanted, { ip: undefined });
        if (!created)
          throw new CliError(
            `User group ${JSON.stringify(userGroupId)} already exists in ${options.environment}; nothing changed (\`ugs groups update\` changes it).`,
          );
        if (!options.json)
          output.log(`Created user group ${JSON.stringify(userGroupId)} in ${options.environment}. ${TOKEN_IS_READ_THROUGH_THE_API}`);
        await printWritten(core, options.environment, userGroupId, options.json, output);
      }, output);
    });

  groups
    .command('update')
    .description(
      'change a group as PUT /api/user does: only the options given (--properties and --mapping replace the whole object). Audited under the key id cli, with a user_group.updated event (user_group.moved when it moves)',
    )
    .argument('<user_group_id>', "the group's user_group_id")
    .option('--name <name>', 'a new display name')
    .option('--properties <json>', 'a JSON object replacing its properties')
    .addOption(new Option('--clear-properties', 'remove its properties').conflicts('properties'))
    .option('--mapping <json>', 'a JSON object replacing its mapping ({} for none)')
    .option('--parent <user_group_id>', 'move it under this group of the same environment')
    .option('--no-parent', 'make it a root')
    .addOption(environmentOption())
    .option('--json', 'print it as GET /api/user_groups/{user_group_id} answers it (no token)')
    .action(async (userGroupId: string, options: GroupOptions & { environment: Environment; json?: boolean }) => {
      const changes = (await input()).updateInput(userGroupId, options);
      if (changes === null) throw new CliError('Nothing to change: give at least one option (see `ugs groups update --help`).');
      await withServices(async (core) => {
        await core.userGroups.update(operator(options.environment), changes, { ip: undefined });
        if (!options.json) output.log(`Updated user group ${JSON.stringify(userGroupId)} in ${options.environment}:`);
        await printWritten(core, options.environment, userGroupId, options.json, output);
      }, output);
    });

  groups
    .command('rotate')
    .description(
      'give a group a new token, as POST /api/user does: the old one stops working at once. Audited under the key id cli, with a user_group.token_rotated event. Never prints the new token: the API answers it (GET /api/user), the console reveals it',
    )
    .argument('<user_group_id>', "the group's user_group_id")
    .addOption(environmentOption())
    .action(async (userGroupId: string, options: { environment: Environment }) => {
      await withServices(async (core) => {
        const principal = operator(options.environment);
        // The service rotates by the current token, as the API does: read here, never shown.
        const current = await core.userGroups.getWithToken(principal, userGroupId);
        await core.userGroups.rotateToken(principal, current.token, { ip: undefined });
        output.log(
          `Rotated the token of user group ${JSON.stringify(userGroupId)} in ${options.environment}: the old token stops working at once. ${TOKEN_IS_READ_THROUGH_THE_API}`,
        );
      }, output);
    });

  groups
    .command('delete')
    .description(
      'delete a group as DELETE /api/user does: its token stops working at once; a group with children is refused unless --cascade. Audited under the key id cli, with a user_group.deleted event for each group',
    )
    .argument('<user_group_id>', "the group's user_group_id")
    .option('--cascade', 'delete its whole subtree with it, in one transaction')
    .addOption(environmentOption())
    .action(async (userGroupId: string, options: { cascade?: boolean; environment: Environment }) => {
      await withServices(async (core) => {
        try {
          await core.userGroups.delete(
            operator(options.environment),
            userGroupId,
            { ip: undefined },
            { cascade: options.cascade === true },
          );
        } catch (error) {
          // The API's message names its body field; say the option instead.
          if (!(error instanceof ServiceError) || error.code !== 'conflict') throw error;
          throw new CliError(
            `User group ${JSON.stringify(userGroupId)} has child groups: delete them first, or add --cascade to delete the whole subtree with it.`,
          );
        }
        output.log(
          `Deleted user group ${JSON.stringify(userGroupId)}${options.cascade ? ' and its whole subtree' : ''} from ${options.environment}.`,
        );
      }, output);
    });
}
