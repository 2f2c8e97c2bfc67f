import { Option, type Command } from 'commander';
import { POLICY_COLUMN_TYPES, postgresPolicySql, tablePolicySql, type PolicyColumnType } from '../../embed/postgres-policies.js';
import type { CliOutput } from '../cli-output.js';
import { CliError } from '../run-command.js';

interface PolicyOptions {
  table?: string;
  column?: string;
  columnType?: PolicyColumnType;
  property?: string;
  subtree?: boolean;
}

/** The table's statements, or none; refuses half a binding rather than printing SQL that binds nothing. */
function tableSql(options: PolicyOptions): string {
  const { table, column, columnType, property, subtree } = options;
  if (table === undefined && column === undefined) {
    if (columnType !== undefined || property !== undefined || subtree)
      throw new CliError('--column-type, --property and --subtree bind a table: give --table and --column too.');
    return '';
  }
  if (table === undefined || column === undefined)
    throw new CliError('give --table and --column together: the table to protect and its column holding the owning group.');
  if (property !== undefined && subtree)
    throw new CliError("give --property or --subtree, not both: the column is compared with a property, or with the group's subtree.");
  try {
    return `\n${tablePolicySql({ table, column, columnType, property, subtree })}`;
  } catch (error) {
    // A name the SQL could not hold as written (a.b.c, an empty name): the message says which.
    throw new CliError(`${(error as Error).message}.`);
  }
}

export function policiesCommand(program: Command, output: CliOutput): void {
  const policies = program
    .command('policies')
    .description('PostgreSQL row-level security bound to the embed session (user-group-service/embed, withSessionClaims)');

  policies
    .command('sql')
    .description(
      'print the SQL installing the ugs schema (functions reading the session: ugs.user_group_id(), ugs.subtree(), ugs.prop(name) and ' +
        "ugs.prop_list(name) bound to the group; ugs.viewer_id(), ugs.viewer_prop(name) and ugs.viewer_prop_list(name) for the viewer's " +
        'view); with --table and --column, also the statements enabling and forcing row-level security on that table and its policy. ' +
        'Opens no store; pipe it to psql',
    )
    .option('--table <name>', 'the table to protect, optionally schema-qualified (sales.orders)')
    .option('--column <name>', "the table's column holding the owning group's user_group_id (or the property's value)")
    .addOption(
      new Option('--column-type <type>', "the column's type: the session's value is compared as that type (default: text)").choices(
        POLICY_COLUMN_TYPES,
      ),
    )
    .option(
      '--property <name>',
      "compare the column with this property of the group (never a viewer's attribute) instead of the group's id",
    )
    .option('--subtree', 'let a group see its descendants’ rows too (sessions minted with include_descendants)')
    .action((options: PolicyOptions) => {
      const table = tableSql(options);
      output.stdout.write(postgresPolicySql() + table);
    });
}
