import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import type { SigningKeyPhase } from '../../signing-keys/signing-key.js';
import { JWKS_PATHS } from '../../signing-keys/http/jwks-paths.js';
import type { CliOutput } from '../cli-output.js';
import { printTable } from '../print-table.js';
import { withServices } from '../run-command.js';
import { isoTime, isoTimeOr } from '../../platform/iso-time.js';

/** The JSON form of a key for `signing-keys list --json`: never its private half. */
function phaseView(phase: SigningKeyPhase) {
  return {
    environment: phase.key.environment,
    kid: phase.key.kid,
    algorithm: phase.key.algorithm,
    state: phase.state,
    created_at: phase.key.createdAt,
    signs_from: phase.key.activatesAt,
    signs_until: phase.signsUntil,
    published_until: phase.publishedUntil,
  };
}

function environmentOption(what: string): Option {
  return new Option('--environment <environment>', `${what} (default: both)`).choices(ENVIRONMENTS);
}

function chosen(environment: Environment | undefined): readonly Environment[] {
  return environment === undefined ? ENVIRONMENTS : [environment];
}

export function signingKeysCommand(program: Command, output: CliOutput): void {
  const keys = program
    .command('signing-keys')
    .description(
      `list and rotate the keys that sign embed tokens: each environment has its own (Customer's published at ${JWKS_PATHS.Customer}, Testing's at ${JWKS_PATHS.Testing})`,
    );

  keys
    .command('list')
    .description('list signing keys: pending (published, not yet signing), active, retired (published until its tokens expire), expired')
    .addOption(environmentOption('only the keys of this environment'))
    .option('--json', 'print a JSON array')
    .action(async (options: { json?: boolean; environment?: Environment }) => {
      await withServices(async ({ signingKeys }) => {
        const all = [];
        for (const environment of chosen(options.environment)) {
          await signingKeys[environment].refresh();
          all.push(...signingKeys[environment].timeline().map(phaseView));
        }
        if (options.json) return output.log(JSON.stringify(all, null, 2));
        printTable(
          all.map((k) => ({
            environment: k.environment,
            kid: k.kid,
            algorithm: k.algorithm,
            state: k.state,
            'signs from': isoTime(k.signs_from),
            'signs until': isoTimeOr(k.signs_until, ''),
            'published until': isoTimeOr(k.published_until, ''),
          })),
          output,
        );
      }, output);
    });

  keys
    .command('rotate')
    .description(
      'publish a new signing key now; it signs once cached JWKS copies have expired, and the old key stays published until its last token expires',
    )
    .addOption(environmentOption('rotate the keys of this environment only'))
    .action(async (options: { environment?: Environment }) => {
      await withServices(async ({ signingKeys }, config) => {
        for (const environment of chosen(options.environment)) {
          const phase = await signingKeys[environment].rotate();
          output.log(`Published ${environment} signing key ${phase.key.kid} (${phase.key.algorithm}) at ${JWKS_PATHS[environment]}.`);
          output.log(
            `It signs new ${environment} embed tokens from ${isoTime(phase.key.activatesAt)}, once every JWKS cached under max-age=${config.embed.jwksMaxAgeSeconds} has expired; until then the current key signs.`,
          );
        }
        output.log(
          'The current key stays published until the last token it signed has expired; no token fails verification because of this rotation.',
        );
      }, output);
    });
}
