import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { withServices } from '../run-command.js';
import { isoTime } from '../../platform/iso-time.js';

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment whose group tags these are').choices(ENVIRONMENTS).default('Customer');

export function groupTagsCommand(program: Command, output: CliOutput): void {
  const groupTags = program
    .command('group-tags')
    .description(
      "the Customer API's group tags (the same as /api/group_tags/): names an environment's customers may carry; a rename or deletion rewrites every customer carrying the tag",
    );

  groupTags
    .command('list')
    .description("list the environment's group tags, oldest first, with when each was made")
    .addOption(environmentOption())
    .option('--json', 'print them as GET /api/group_tags/ answers them')
    .action(async (options: { environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const tags = await core.groupTags.list(operator(options.environment));
        if (options.json)
          return output.log(
            JSON.stringify(
              tags.map((tag) => ({ name: tag.name })),
              null,
              2,
            ),
          );
        if (tags.length === 0)
          return output.log(`No group tags in ${options.environment} yet: create one with \`ugs group-tags create NAME\`.`);
        printTable(
          tags.map((tag) => ({ name: tag.name, created: isoTime(tag.createdAt) })),
          output,
        );
      }, output);
    });

  groupTags
    .command('create')
    .description(
      'create a group tag; refused when the environment has one of that name. Audited under the key id cli, with a group_tag.created event',
    )
    .argument('<name>', "the tag's name")
    .addOption(environmentOption())
    .action(async (name: string, options: { environment: Environment }) => {
      await withServices(async (core) => {
        await core.groupTags.create(operator(options.environment), name, { ip: undefined });
        output.log(`Created group tag ${JSON.stringify(name)} in ${options.environment}.`);
      }, output);
    });

  groupTags
    .command('rename')
    .description(
      "rename a group tag and every customer's mention of it, in one transaction. Audited under the key id cli, with a group_tag.renamed event (and user_group.updated for each customer carrying it)",
    )
    .argument('<name>', "the tag's current name")
    .argument('<new_name>', 'its new name')
    .addOption(environmentOption())
    .action(async (name: string, newName: string, options: { environment: Environment }) => {
      await withServices(async (core) => {
        await core.groupTags.rename(operator(options.environment), name, newName, { ip: undefined });
        output.log(
          `Renamed group tag ${JSON.stringify(name)} to ${JSON.stringify(newName)} in ${options.environment}, on every customer carrying it.`,
        );
      }, output);
    });

  groupTags
    .command('delete')
    .description(
      'delete a group tag and take it off every customer carrying it, in one transaction. Audited under the key id cli, with a group_tag.deleted event (and user_group.updated for each customer carrying it)',
    )
    .argument('<name>', "the tag's name")
    .addOption(environmentOption())
    .action(async (name: string, options: { environment: Environment }) => {
      await withServices(async (core) => {
        await core.groupTags.delete(operator(options.environment), name, { ip: undefined });
        output.log(`Deleted group tag ${JSON.stringify(name)} from ${options.environment} and from every customer carrying it.`);
      }, output);
    });
}
