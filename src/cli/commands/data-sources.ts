import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { Core } from '../../app/core.js';
import { DATA_SOURCE_LIMITS, SSL_MODES, type DataSourceView, type SslMode } from '../../data-sources/data-source.js';
import type { DataSourceDetail } from '../../data-sources/data-source-service.js';
import type { PostgresConnectionInput } from '../../data-sources/postgres-connection.js';
import { checkJson, dataSourceDetailJson, dataSourceJson } from '../../data-sources/http/data-source-view.js';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { ServiceError } from '../../kernel/errors.js';
import type { CliOutput } from '../cli-output.js';
import { printCheck } from '../data-source-check-report.js';
import { operator } from '../operator.js';
import { passwordFrom, type PasswordOptions } from '../password-input.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { isoTime } from '../../platform/iso-time.js';

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment whose data sources these are').choices(ENVIRONMENTS).default('Customer');

/** What `add` and `update` take besides the id: each absent one stays as it is (update) or takes its default (add). */
interface ConnectionOptions extends PasswordOptions {
  name?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  sslMode?: SslMode;
  sslCaFile?: string;
  clearSslCa?: boolean;
}

function port(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 65_535)
    throw new CliError(`--port is a whole number from 1 to 65535, not ${JSON.stringify(text)}.`);
  return value;
}

/** The options every write shares: where the database is, how TLS is checked, and where the password comes from. */
function connectionOptions(command: Command): Command {
  return command
    .option('--host <host>', 'a host name or IP address, without scheme or port')
    .option('--port <n>', 'the port (5432 when a data source is added without one)', port)
    .option('--database <name>', 'the database to connect to')
    .option(
      '--user <name>',
      'the role to connect as: the dashboard’s, never a superuser or a BYPASSRLS role, which row policies do not bind',
    )
    .addOption(new Option('--ssl-mode <mode>', "TLS, libpq's modes (disable when a data source is added without one)").choices(SSL_MODES))
    .option('--ssl-ca-file <file>', 'PEM certificates the server’s chain must reach (verify-ca, verify-full); the system roots otherwise')
    .addOption(
      new Option(
        '--password-stdin',
        'read the password from standard input (a pipe or file; one trailing line ending dropped): printf \'%s\' "$PW" | ugs …',
      ).conflicts('passwordEnv'),
    )
    .option(
      '--password-env <name>',
      'read the password from this environment variable (its name, never the password, is on the command line)',
    );
}

/** The connection part of a write, as the service takes it: only what was given. */
async function connectionInput(options: ConnectionOptions, output: CliOutput): Promise<PostgresConnectionInput> {
  const ca = options.clearSslCa ? null : options.sslCaFile === undefined ? undefined : readCa(options.sslCaFile);
  const password = await passwordFrom(options, output);
  const ssl = { ...(options.sslMode !== undefined && { mode: options.sslMode }), ...(ca !== undefined && { ca }) };
  return {
    ...(options.host !== undefined && { host: options.host }),
    ...(options.port !== undefined && { port: options.port }),
    ...(options.database !== undefined && { database: options.database }),
    ...(options.user !== undefined && { user: options.user }),
    ...(password !== undefined && { password }),
    ...(Object.keys(ssl).length > 0 && { ssl }),
  };
}

function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `--ssl-ca-file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`,
    );
  }
}

/** Where it connects, as a libpq URL would say it without the password: nothing here is secret. */
function address(view: DataSourceView): string {
  const { user, host, port, database } = view.connection;
  return `${user}@${host.includes(':') ? `[${host}]` : host}:${port}/${database}`;
}

function row(detail: DataSourceDetail): Record<string, string> {
  const view = detail.dataSource;
  return {
    id: view.id,
    name: view.name,
    kind: view.kind,
    connects: address(view),
    tls: view.connection.ssl.mode + (view.connection.ssl.ca === undefined ? '' : ' (own CA)'),
    password: view.passwordSet ? 'set' : 'none',
    groups: String(detail.mappedGroups.total),
    version: String(view.version),
    updated: isoTime(view.updatedAt),
  };
}

/** Every data source of the environment in id order, each with the groups mapping to it. */
async function everyDataSource(core: Core, environment: Environment): Promise<DataSourceDetail[]> {
  const details: DataSourceDetail[] = [];
  for (let after: string | undefined; ;) {
    const page = await core.dataSources.list(operator(environment), { after, limit: DATA_SOURCE_LIMITS.pageMax });
    for (const view of page.dataSources) details.push(await core.dataSources.get(operator(environment), view.id));
    if (page.nextCursor === null) return details;
    after = page.nextCursor;
  }
}

export function dataSourcesCommand(program: Command, output: CliOutput): void {
  const dataSources = program
    .command('data-sources')
    .description(
      'add, list, change, check and remove the databases group mappings name (the same as /api/data_sources); never shows a password',
    );

  dataSources
    .command('list')
    .description(
      "list an environment's data sources: where each connects, whether a password is set (never the password) and how many groups map to it",
    )
    .addOption(environmentOption())
    .option('--json', 'print a JSON array, each as GET /api/data_sources/{id} answers it')
    .action(async (options: { environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const all = await everyDataSource(core, options.environment);
        if (options.json) return output.log(JSON.stringify(all.map(dataSourceDetailJson), null, 2));
        if (all.length === 0)
          return output.log(`No data sources in ${options.environment} yet: add one with \`ugs data-sources add --id ID --name NAME …\`.`);
        printTable(all.map(row), output);
      }, output);
    });

  connectionOptions(
    dataSources
      .command('add')
      .description(
        'add a PostgreSQL data source; its password (if any) from --password-stdin or --password-env, sealed with the server secret',
      )
      .requiredOption('--id <id>', 'yours to choose: the value group mappings name (e.g. 213)')
      .requiredOption('--name <text>', 'a name for people'),
  )
    .addOption(environmentOption())
    .option('--json', 'print it as the API answers')
    .action(async (options: ConnectionOptions & { id: string; name: string; environment: Environment; json?: boolean }) => {
      if (options.host === undefined || options.database === undefined || options.user === undefined)
        throw new CliError('add needs --host, --database and --user (--port is 5432 when absent).');
      const connection = await connectionInput(options, output);
      await withServices(async (core) => {
        const view = await core.dataSources.create(
          operator(options.environment),
          { id: options.id, name: options.name, kind: 'postgresql', connection },
          { ip: undefined },
        );
        if (options.json) return output.log(JSON.stringify(dataSourceJson(view), null, 2));
        output.log(
          `Added data source ${view.id} (${view.name}) to the ${options.environment} environment: ${address(view)}, TLS ${view.connection.ssl.mode}, ${view.passwordSet ? 'password set' : 'no password'}.`,
        );
      }, output);
    });

  connectionOptions(
    dataSources
      .command('update')
      .description(
        'change a data source: only the options given; pools of the dashboard layer pick the change up within their refresh delay',
      )
      .argument('<id>', 'the data source id')
      .option('--name <text>', 'a name for people'),
  )
    .addOption(new Option('--clear-password', 'remove its password').conflicts(['passwordStdin', 'passwordEnv']))
    .addOption(new Option('--clear-ssl-ca', 'remove its own CA: the system roots are used').conflicts('sslCaFile'))
    .addOption(environmentOption())
    .option('--json', 'print it as the API answers')
    .action(async (id: string, options: ConnectionOptions & { environment: Environment; json?: boolean }) => {
      const connection = await connectionInput(options, output);
      const update = {
        ...(options.name !== undefined && { name: options.name }),
        ...(Object.keys(connection).length > 0 && { connection }),
      };
      if (Object.keys(update).length === 0)
        throw new CliError('Nothing to change: give at least one option (see `ugs data-sources update --help`).');
      await withServices(async (core) => {
        const before = (await core.dataSources.get(operator(options.environment), id)).dataSource;
        const view = await core.dataSources.update(operator(options.environment), id, update, { ip: undefined });
        if (options.json) return output.log(JSON.stringify(dataSourceJson(view), null, 2));
        output.log(
          view.version === before.version
            ? `Nothing changed: data source ${id} already has these settings.`
            : `Updated data source ${id} (version ${view.version}): ${address(view)}, TLS ${view.connection.ssl.mode}, ${view.passwordSet ? 'password set' : 'no password'}.`,
        );
      }, output);
    });

  dataSources
    .command('check')
    .description(
      'connect once with a short timeout and say what was found, as categories (never the server’s text): reachable, authenticated, server version, superuser or BYPASSRLS. Exit 1 when it could not connect',
    )
    .argument('<id>', 'the data source id')
    .addOption(environmentOption())
    .option('--json', 'print the result as the API answers it')
    .action(async (id: string, options: { environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const result = await core.dataSources.check(operator(options.environment), id, { ip: undefined });
        if (options.json) output.log(JSON.stringify(checkJson(result), null, 2));
        else printCheck(result, output);
        if (result.failure !== null) throw new CliError(`data source ${id} could not be reached or used: ${result.failure}.`);
      }, output);
    });

  dataSources
    .command('remove')
    .description('remove a data source; refused while a group’s own mapping names it, unless --force')
    .argument('<id>', 'the data source id')
    .option('--force', 'remove it even while groups map to it: their mapping values then resolve to no data source')
    .addOption(environmentOption())
    .action(async (id: string, options: { environment: Environment; force?: boolean }) => {
      await withServices(async (core) => {
        try {
          await core.dataSources.remove(operator(options.environment), id, { force: options.force === true }, { ip: undefined });
        } catch (error) {
          // The service words it for the API (force=true); the same refusal, in the CLI's terms.
          if (error instanceof ServiceError && error.code === 'conflict')
            throw new CliError(error.message.replace('delete with force=true', 'remove it with --force'));
          throw error;
        }
        output.log(`Removed data source ${id}.`);
      }, output);
    });
}
