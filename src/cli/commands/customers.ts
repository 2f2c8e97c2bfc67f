import { Option, type Command } from 'commander';
import type { Core } from '../../app/core.js';
import type { Customer } from '../../customers/customer.js';
import { CUSTOMER_LIMITS } from '../../customers/customer.js';
import type { CustomerChanges } from '../../customers/customer-service.js';
import { customerJson } from '../../customers/http/customer-view.js';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment whose customers these are').choices(ENVIRONMENTS).default('Customer');

/** Each --email or --tag, gathered in the order given. */
const repeated = (value: string, previous: string[] = []): string[] => [...previous, value];

/**
 * A customer as the Customer API answers it, without its token: the CLI prints no group's token (nothing else in
 * `ugs` does either), and stdout ends up in terminals, logs and tickets. The token is read and rotated through the API.
 */
function withoutToken(customer: Customer) {
  const json: Partial<ReturnType<typeof customerJson>> = customerJson(customer);
  delete json.token;
  return json;
}

const listed = (values: readonly string[]) => (values.length === 0 ? 'none' : values.join(', '));

/** What `show` prints: one field a line, name then value; never the token. */
function printCustomer(customer: Customer, output: CliOutput): void {
  const json = customerJson(customer);
  const fields: [string, string][] = [
    ['provided_id', json.provided_id],
    ['name', json.name],
    ['environment', json.access_group],
    ['hierarchy_level', json.hierarchy_level ?? 'none (made through /api/user)'],
    ['parent', json.parent_provided_id ?? 'none (a root)'],
    ['demo', json.is_demo_group ? 'yes' : 'no'],
    ['emails', listed(json.emails)],
    ['group_tags', listed(json.group_tags)],
    ['properties', JSON.stringify(json.properties)],
    ['computed_properties', JSON.stringify(json.computed_properties)],
    ['mapping', JSON.stringify(json.parent_schema_datasource_mapping)],
    ['computed_mapping', JSON.stringify(json.computed_parent_schema_datasource_mapping)],
  ];
  const width = Math.max(...fields.map(([name]) => name.length));
  for (const [name, value] of fields) output.log(`${name.padEnd(width)}  ${value}`);
}

function row(customer: Customer): Record<string, string> {
  const { group } = customer;
  return {
    provided_id: group.providedId,
    name: group.name,
    level: group.hierarchyLevel ?? '',
    parent: group.parentId ?? '',
    demo: group.isDemoGroup ? 'yes' : 'no',
    tags: (group.groupTags ?? []).join(','),
    emails: String((group.emails ?? []).length),
  };
}

/** Every customer the filters keep, oldest first, a page of 1000 after another. */
async function everyCustomer(core: Core, environment: Environment, filter: { parentId?: string; hierarchyLevel?: string }) {
  const customers: Customer[] = [];
  for (let page = 1; ; page++) {
    const found = await core.customers.list(operator(environment), filter, { page, pageSize: CUSTOMER_LIMITS.pageSizeMax });
    customers.push(...found.customers);
    if (found.customers.length < CUSTOMER_LIMITS.pageSizeMax || customers.length >= found.total) return customers;
  }
}

interface SetOptions {
  email?: string[];
  clearEmails?: boolean;
  tag?: string[];
  clearTags?: boolean;
  demo?: boolean;
  level?: string;
  environment: Environment;
  json?: boolean;
}

/** The changes `set` asks for, as the Customer API's update takes them: only what was given. */
function changesOf(providedId: string, options: SetOptions): CustomerChanges {
  const emails = options.clearEmails ? [] : options.email;
  const groupTags = options.clearTags ? [] : options.tag;
  return {
    providedId,
    ...(emails !== undefined && { emails }),
    ...(groupTags !== undefined && { groupTags }),
    ...(options.demo !== undefined && { isDemoGroup: options.demo }),
    ...(options.level !== undefined && { hierarchyLevelName: options.level }),
  };
}

export function customersCommand(program: Command, output: CliOutput): void {
  const customers = program
    .command('customers')
    .description(
      "the Customer API's customers (the same groups as /api/user): list, show and set their emails, tags, demo flag and hierarchy level; never shows a token",
    );

  customers
    .command('list')
    .description("list the environment's customers, oldest first: id, name, hierarchy level, parent, demo flag, tags, how many emails")
    .option('--parent <provided_id>', 'only the children of this customer')
    .option('--level <name>', 'only the customers at this hierarchy level (UGS_CUSTOMER_HIERARCHY_LEVELS)')
    .addOption(environmentOption())
    .option('--json', 'print a JSON array, each customer as POST /api/get_customer/ answers it, without its token')
    .action(async (options: { parent?: string; level?: string; environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const all = await everyCustomer(core, options.environment, { parentId: options.parent, hierarchyLevel: options.level });
        if (options.json) return output.log(JSON.stringify(all.map(withoutToken), null, 2));
        if (all.length === 0) return output.log(`No customers in ${options.environment} match.`);
        printTable(all.map(row), output);
      }, output);
    });

  customers
    .command('show')
    .description(
      'show one customer: hierarchy level, parent, demo flag, emails, tags, its own and computed properties and mapping; never its token',
    )
    .argument('<provided_id>', "the customer's id (its user_group_id)")
    .addOption(environmentOption())
    .option('--json', 'print it as POST /api/get_customer/ answers it, without its token')
    .action(async (providedId: string, options: { environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const customer = await core.customers.get(operator(options.environment), providedId);
        if (options.json) return output.log(JSON.stringify(withoutToken(customer), null, 2));
        printCustomer(customer, output);
      }, output);
    });

  customers
    .command('set')
    .description(
      'change a customer as POST /api/update_customer/ does: only the options given; --email and --tag replace the whole list (repeat each for several). Audited under the key id cli, with a user_group.updated event',
    )
    .argument('<provided_id>', "the customer's id (its user_group_id)")
    .option('--email <address>', 'an email address (repeat for each; replaces them all)', repeated)
    .addOption(new Option('--clear-emails', 'remove every email address').conflicts('email'))
    .option('--tag <name>', 'an existing group tag (repeat for each; replaces them all; `ugs group-tags create` makes one)', repeated)
    .addOption(new Option('--clear-tags', 'remove every tag').conflicts('tag'))
    .option('--demo', 'mark it a demo customer')
    .option('--no-demo', 'mark it not a demo customer')
    .option('--level <name>', 'its hierarchy level: its parent must stay above it, its children below')
    .addOption(environmentOption())
    .option('--json', 'print it as the API answers, without its token')
    .action(async (providedId: string, options: SetOptions) => {
      const changes = changesOf(providedId, options);
      if (Object.keys(changes).length === 1)
        throw new CliError('Nothing to change: give at least one option (see `ugs customers set --help`).');
      await withServices(async (core) => {
        const customer = await core.customers.update(operator(options.environment), changes, { ip: undefined });
        if (options.json) return output.log(JSON.stringify(withoutToken(customer), null, 2));
        output.log(`Updated customer ${providedId} in ${options.environment}:`);
        printCustomer(customer, output);
      }, output);
    });
}
