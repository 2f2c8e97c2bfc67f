import type { Command } from 'commander';
import type { SigningKeyPhase } from '../../domain/signing-key.js';
import { printTable } from '../print-table.js';
import { withServices } from '../run-command.js';

/** The JSON form of a key for `signing-keys list --json`: never its private half. */
function phaseView(phase: SigningKeyPhase) {
  return {
    kid: phase.key.kid,
    algorithm: phase.key.algorithm,
    state: phase.state,
    created_at: phase.key.createdAt,
    signs_from: phase.key.activatesAt,
    signs_until: phase.signsUntil,
    published_until: phase.publishedUntil,
  };
}

export function signingKeysCommand(program: Command): void {
  const keys = program.command('signing-keys').description('list and rotate the keys that sign embed tokens (published at /.well-known/jwks.json)');

  keys
    .command('list')
    .description('list signing keys: pending (published, not yet signing), active, retired (published until its tokens expire), expired')
    .option('--json', 'print a JSON array')
    .action(async (options: { json?: boolean }) => {
      await withServices(async ({ signingKeys }) => {
        await signingKeys.refresh();
        const all = signingKeys.timeline().map(phaseView);
        if (options.json) return console.log(JSON.stringify(all, null, 2));
        printTable(
          all.map((k) => ({
            kid: k.kid,
            algorithm: k.algorithm,
            state: k.state,
            'signs from': k.signs_from,
            'signs until': k.signs_until ?? '',
            'published until': k.published_until ?? '',
          })),
        );
      });
    });

  keys
    .command('rotate')
    .description('publish a new signing key now; it signs once cached JWKS copies have expired, and the old key stays published until its last token expires')
    .action(async () => {
      await withServices(async ({ signingKeys }, config) => {
        const phase = await signingKeys.rotate();
        console.log(`Published signing key ${phase.key.kid} (${phase.key.algorithm}).`);
        console.log(`It signs new embed tokens from ${phase.key.activatesAt}, once every JWKS cached under max-age=${config.embed.jwksMaxAgeSeconds} has expired; until then the current key signs.`);
        console.log('The current key stays published until the last token it signed has expired; no token fails verification because of this rotation.');
      });
    });
}
