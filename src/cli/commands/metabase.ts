import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { metabaseSettingsJson, metabaseTokenJson } from '../../metabase/http/metabase-view.js';
import { METABASE_LIMITS } from '../../metabase/metabase-settings.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { secretFrom, type SecretInput } from '../password-input.js';
import { CliError, withServices } from '../run-command.js';
import { isoTime } from '../../platform/iso-time.js';

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment whose Metabase this is').choices(ENVIRONMENTS).default('Customer');

const SECRET_KEY_INPUT: SecretInput = {
  stdinFlag: '--secret-key-stdin',
  envFlag: '--secret-key-env',
  noun: 'secret key',
  maxLength: METABASE_LIMITS.secretMaxLength,
  whenEmpty: "copy Metabase's key from Admin settings, Embedding, Static embedding",
};

function seconds(flag: string) {
  return (text: string): number => {
    if (!/^\d+$/.test(text)) throw new CliError(`${flag} is a whole number of seconds, not ${JSON.stringify(text)}.`);
    return Number(text);
  };
}

/** `name=value`, gathered into an object: each --param (slug=source) or --viewer-attribute (name=value). */
function pairs(flag: string) {
  return (text: string, previous: Record<string, string> = {}): Record<string, string> => {
    const at = text.indexOf('=');
    if (at < 1) throw new CliError(`${flag} takes NAME=VALUE, not ${JSON.stringify(text)}.`);
    const name = text.slice(0, at);
    if (Object.hasOwn(previous, name)) throw new CliError(`${flag} ${name} is given twice.`);
    return { ...previous, [name]: text.slice(at + 1) };
  };
}

/** An id as Metabase shows it: digits are the numeric id, anything else its Entity ID (the service checks either). */
const metabaseId = (text: string): number | string => (/^\d+$/.test(text) ? Number(text) : text);

interface MintOptions {
  group: string;
  dashboard?: number | string;
  question?: number | string;
  param?: Record<string, string>;
  viewer?: string;
  viewerAttribute?: Record<string, string>;
  expiresIn?: number;
  environment: Environment;
  json?: boolean;
}

export function metabaseCommand(program: Command, output: CliOutput): void {
  const metabase = program
    .command('metabase')
    .description(
      "Metabase static embedding (the same as /api/integrations/metabase): the environment's site and embedding secret key, never shown, and tokens whose locked parameters come from a group",
    );

  metabase
    .command('show')
    .description(
      "show the environment's Metabase settings: its site, whether a secret key is set (never the key) and the longest token lifetime",
    )
    .addOption(environmentOption())
    .option('--json', 'print it as GET /api/integrations/metabase answers')
    .action(async (options: { environment: Environment; json?: boolean }) => {
      await withServices(async (core) => {
        const view = await core.metabase.get(operator(options.environment));
        if (options.json) return output.log(JSON.stringify(metabaseSettingsJson(view), null, 2));
        output.log(
          `Metabase for ${options.environment}: ${view.siteUrl}, secret key set, tokens live at most ${view.maxExpiresIn} s (updated ${isoTime(view.updatedAt)}).`,
        );
      }, output);
    });

  metabase
    .command('configure')
    .description(
      'set (or replace) the site and embedding secret key; the key from --secret-key-stdin or --secret-key-env, sealed with the server secret, never an argument (ps and shell history would show it)',
    )
    .requiredOption('--site-url <url>', "Metabase's address, e.g. https://metabase.example.com")
    .addOption(new Option('--secret-key-stdin', "read Metabase's key from standard input (a pipe or file)").conflicts('secretKeyEnv'))
    .option('--secret-key-env <name>', 'read the key from this environment variable (its name, never the key, is on the command line)')
    .option(
      '--max-expires-in <seconds>',
      `the longest lifetime a mint may ask for (${METABASE_LIMITS.expiresInMin} to ${METABASE_LIMITS.expiresInMax}; default ${METABASE_LIMITS.maxExpiresInDefault})`,
      seconds('--max-expires-in'),
    )
    .addOption(environmentOption())
    .option('--json', 'print it as the API answers')
    .action(
      async (options: {
        siteUrl: string;
        secretKeyStdin?: boolean;
        secretKeyEnv?: string;
        maxExpiresIn?: number;
        environment: Environment;
        json?: boolean;
      }) => {
        const secretKey = await secretFrom({ stdin: options.secretKeyStdin, env: options.secretKeyEnv }, SECRET_KEY_INPUT, output);
        if (secretKey === undefined) throw new CliError('configure needs the key: --secret-key-stdin or --secret-key-env NAME.');
        await withServices(async (core) => {
          const view = await core.metabase.configure(
            operator(options.environment),
            { siteUrl: options.siteUrl, secretKey, maxExpiresIn: options.maxExpiresIn },
            { ip: undefined },
          );
          if (options.json) return output.log(JSON.stringify(metabaseSettingsJson(view), null, 2));
          output.log(`Metabase for ${options.environment}: ${view.siteUrl}, secret key set, tokens live at most ${view.maxExpiresIn} s.`);
        }, output);
      },
    );

  metabase
    .command('remove')
    .description('forget the site and key: no more mints. Tokens already handed out stay valid in Metabase until they expire')
    .addOption(environmentOption())
    .action(async (options: { environment: Environment }) => {
      await withServices(async (core) => {
        await core.metabase.remove(operator(options.environment), { ip: undefined });
        output.log(
          `Removed the ${options.environment} Metabase settings. Tokens already handed out live until they expire; regenerate the key in Metabase to end them now.`,
        );
      }, output);
    });

  metabase
    .command('mint')
    .description(
      "mint a token for one dashboard or question, its locked parameters from the group (as POST /api/integrations/metabase/embed_tokens), and print the iframe's URL",
    )
    .requiredOption('--group <user_group_id>', 'the group whose values the locked parameters carry')
    .addOption(new Option('--dashboard <id>', "the dashboard's id, or its Entity ID").argParser(metabaseId).conflicts('question'))
    .addOption(new Option('--question <id>', "the question's id, or its Entity ID").argParser(metabaseId))
    .option(
      '--param <slug=source>',
      'a locked parameter and where its value comes from: user_group_id, user_group_subtree, property:NAME or viewer:ATTRIBUTE (repeat for each)',
      pairs('--param'),
    )
    .option('--viewer <id>', "the viewer's id (audited, and counted in the group's viewers)")
    .option('--viewer-attribute <name=value>', "one of the viewer's attributes, a string (repeat for each)", pairs('--viewer-attribute'))
    .option('--expires-in <seconds>', `the token's lifetime (default ${METABASE_LIMITS.expiresInDefault})`, seconds('--expires-in'))
    .addOption(environmentOption())
    .option('--json', 'print the answer as the API gives it')
    .action(async (options: MintOptions) => {
      const resource =
        options.dashboard !== undefined
          ? { dashboard: options.dashboard }
          : options.question !== undefined
            ? { question: options.question }
            : null;
      if (resource === null) throw new CliError('mint needs --dashboard ID or --question ID.');
      if (options.viewerAttribute !== undefined && options.viewer === undefined)
        throw new CliError('--viewer-attribute needs --viewer ID: attributes belong to a viewer.');
      await withServices(async (core) => {
        const minted = await core.metabase.mint(
          operator(options.environment),
          {
            userGroupId: options.group,
            resource,
            params: options.param ?? {},
            ...(options.viewer === undefined
              ? {}
              : { viewer: { id: options.viewer, ...(options.viewerAttribute ? { attributes: options.viewerAttribute } : {}) } }),
            expiresIn: options.expiresIn,
          },
          { ip: undefined },
        );
        if (options.json) return output.log(JSON.stringify(metabaseTokenJson(minted), null, 2));
        output.error(`ugs: valid until ${isoTime(minted.expiresAt)}; locked parameters: ${JSON.stringify(minted.params)}`);
        output.log(minted.url);
      }, output);
    });
}
