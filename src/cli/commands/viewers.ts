import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { PATTERNS } from '../../platform/http/patterns.js';
import type { Core } from '../../app/core.js';
import { VIEWER_LIMITS, viewerIdNfcRefusal, type ViewerActivity } from '../../viewers/viewer.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { isoTime } from '../../platform/iso-time.js';

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment of the group or viewer').choices(ENVIRONMENTS).default('Customer');

function positiveInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new CliError(`--limit must be a positive whole number, not ${JSON.stringify(text)}.`);
  return value;
}

/** The same bounds as the wire's viewer_id (NFC included), so the CLI never ends the sessions of an id no session can carry. */
function viewerId(text: string): string {
  if (text.length < 1 || text.length > VIEWER_LIMITS.idMaxLength || !new RegExp(PATTERNS.printable.pattern).test(text))
    throw new CliError(`A viewer id is 1 to ${VIEWER_LIMITS.idMaxLength} characters and ${PATTERNS.printable.rule}.`);
  const refusal = viewerIdNfcRefusal(text, 'viewer_id');
  if (refusal !== null) throw new CliError(refusal);
  return text;
}

/**
 * The group's viewers, most recently seen first: every one, a page after
 * another, or the first `limit`; `more` tells whether others were left out.
 */
async function groupViewers(
  core: Core,
  environment: Environment,
  group: string,
  limit: number | undefined,
): Promise<{ viewers: ViewerActivity[]; more: boolean }> {
  const viewers: ViewerActivity[] = [];
  let after: string | undefined;
  for (;;) {
    const want = Math.min(VIEWER_LIMITS.pageMax, limit === undefined ? Infinity : limit - viewers.length);
    const page = await core.viewers.list(operator(environment), group, { after, limit: want });
    viewers.push(...page.viewers);
    if (page.nextCursor === null) return { viewers, more: false };
    if (limit !== undefined && viewers.length >= limit) return { viewers, more: true };
    after = page.nextCursor;
  }
}

export function viewersCommand(program: Command, output: CliOutput): void {
  const viewers = program
    .command('viewers')
    .description("a group's viewers (the people its embed sessions named) and ending a viewer's sessions (the same as /api/viewers)");

  viewers
    .command('list')
    .description(
      "the viewers seen in a group's embed sessions, most recently seen first: first and last seen, sessions. It reads the counts the " +
        'serving processes have written: they flush every UGS_ACTIVITY_FLUSH_MS (5 s) and when they stop, so the newest sessions may not show yet',
    )
    .requiredOption('--group <user_group_id>', 'the group, by its user_group_id')
    .addOption(environmentOption())
    .option('--limit <n>', 'only the n most recently seen (default: every viewer, read page by page)', positiveInteger)
    .option('--json', 'print a JSON array (viewer_id, first_seen_at, last_seen_at, sessions)')
    .action(async (options: { group: string; environment: Environment; limit?: number; json?: boolean }) => {
      await withServices(async (core) => {
        const { viewers: seen, more } = await groupViewers(core, options.environment, options.group, options.limit);
        const views = seen.map((v) => ({
          viewer_id: v.viewerId,
          first_seen_at: v.firstSeenAt,
          last_seen_at: v.lastSeenAt,
          sessions: v.sessions,
        }));
        if (options.json) output.log(JSON.stringify(views, null, 2));
        else if (views.length === 0)
          output.log(`No viewers seen in ${options.group} yet (sessions minted in the last few seconds are counted at the next flush).`);
        else
          printTable(
            views.map((v) => ({
              viewer: v.viewer_id,
              'first seen': isoTime(v.first_seen_at),
              'last seen': isoTime(v.last_seen_at),
              sessions: String(v.sessions),
            })),
            output,
          );
        // On stderr: stdout stays the viewers alone (a JSON array stays parseable).
        if (more) output.error(`ugs: more viewers were seen in ${options.group}: leave out --limit to list every one.`);
      }, output);
    });

  viewers
    .command('revoke')
    .description(
      'end every session of a viewer at once, in every group of the environment (introspection and verifiers refuse its earlier tokens; sessions minted afterwards work); audited under the key id cli, with a viewer.sessions_revoked event',
    )
    .argument('<viewer_id>', 'the viewer id the sessions were minted with', viewerId)
    .addOption(environmentOption())
    .action(async (id: string, options: { environment: Environment }) => {
      await withServices(async (core) => {
        const { revokedAt } = await core.viewers.revokeSessions(operator(options.environment), id);
        output.log(
          `Ended the sessions of viewer ${JSON.stringify(id)} minted up to ${isoTime(revokedAt)} in every group of the ${options.environment} environment; sessions minted from now on work.`,
        );
      }, output);
    });
}
