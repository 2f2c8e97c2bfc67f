import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { lastDays, USAGE_LIMITS } from '../../usage/usage.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { isoTimeOr } from '../../platform/iso-time.js';

/** A whole number within bounds, or a one-line error naming the option. */
const wholeNumber = (option: string, max: number) => (text: string) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1 || value > max)
    throw new CliError(`${option} must be a whole number from 1 to ${max}, not ${JSON.stringify(text)}.`);
  return value;
};

interface UsageOptions {
  group?: string;
  days: number;
  limit: number;
  environment: Environment;
  json?: boolean;
}

export function usageCommand(program: Command, output: CliOutput): void {
  program
    .command('usage')
    .description(
      "embed sessions minted and renewed and distinct viewers over the last days (UTC, today's included): the environment's groups ranked by sessions, or with --group one group per day (the same as /api/usage). It reads the counts the serving processes have written: they flush every UGS_ACTIVITY_FLUSH_MS (5 s) and when they stop",
    )
    .option('--group <user_group_id>', 'one group, per day')
    .option(
      '--days <n>',
      `how many days, 1 to ${USAGE_LIMITS.rangeMaxDays}`,
      wholeNumber('--days', USAGE_LIMITS.rangeMaxDays),
      USAGE_LIMITS.rangeDefaultDays,
    )
    .option(
      '--limit <n>',
      `how many groups the ranking shows, 1 to ${USAGE_LIMITS.topMax}`,
      wholeNumber('--limit', USAGE_LIMITS.topMax),
      20,
    )
    .addOption(new Option('--environment <environment>', 'the environment').choices(ENVIRONMENTS).default('Customer'))
    .option('--json', 'print a JSON array (per day: start, sessions, renewals, viewers; per group: the fields of GET /api/usage)')
    .action(async (options: UsageOptions) => {
      await withServices(async (core) => {
        const principal = operator(options.environment);
        if (options.group !== undefined) {
          const { usage } = await core.usage.groupDays(principal, options.group, options.days);
          if (options.json) output.log(JSON.stringify(usage, null, 2));
          else
            printTable(
              usage.map((b) => ({
                day: b.start.slice(0, 10),
                sessions: String(b.sessions),
                renewals: String(b.renewals),
                viewers: String(b.viewers),
              })),
              output,
            );
          return;
        }
        // From the first of the last days, to the API's default end: with the default --days, GET /api/usage's own range.
        const { groups } = await core.usage.topGroups(principal, { from: lastDays(options.days, new Date()).from, limit: options.limit });
        const rows = groups.map((g) => ({
          user_group_id: g.userGroupId,
          name: g.name,
          sessions: g.sessions,
          renewals: g.renewals,
          viewers: g.viewers,
          last_session_at: g.lastSessionAt,
        }));
        if (options.json) output.log(JSON.stringify(rows, null, 2));
        else if (rows.length === 0)
          output.log(
            `No embed sessions counted in the ${options.environment} environment in the last ${options.days} days (sessions of the last few seconds are counted at the next flush).`,
          );
        else
          printTable(
            rows.map((r) => ({
              group: r.user_group_id,
              name: r.name,
              sessions: String(r.sessions),
              renewals: String(r.renewals),
              viewers: String(r.viewers),
              'last session': isoTimeOr(r.last_session_at, '-'),
            })),
            output,
          );
      }, output);
    });
}
