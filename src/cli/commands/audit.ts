import type { Command } from 'commander';
import type { AuditQuery, AuditRecord } from '../../audit/audit.js';
import type { AuditStore } from '../../audit/audit-store.js';
import type { CliOutput } from '../cli-output.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { isoTime } from '../../platform/iso-time.js';

function auditView(record: AuditRecord) {
  return {
    id: record.id,
    at: record.at,
    action: record.action,
    environment: record.environment,
    team_id: record.teamId,
    user_group_id: record.providedId,
    key_id: record.keyId,
    fields: record.fields,
    client_address: record.clientAddress,
    webhook_id: record.webhookId ?? null,
    // Only viewer.sessions_revoked records name a viewer; the others keep the fields they always had.
    ...(record.viewerId ? { viewer_id: record.viewerId } : {}),
    // Likewise only data_source.* records name a data source.
    ...(record.dataSourceId ? { data_source_id: record.dataSourceId } : {}),
  };
}

function parseSince(text: string): string {
  const time = new Date(text);
  if (Number.isNaN(time.getTime()))
    throw new CliError(`--since ${JSON.stringify(text)} is not a time; use ISO 8601, e.g. 2026-11-22 or 2026-11-22T10:00:00Z.`);
  return isoTime(time);
}

/** Records per store call when `--all` follows the cursor. */
const ALL_PAGE_SIZE = 1000;

function positiveInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new CliError(`${flag} must be a positive whole number, not ${JSON.stringify(text)}.`);
  return value;
}

export function auditCommand(program: Command, output: CliOutput): void {
  program
    .command('audit')
    .description(
      'show the audit log, newest first (as the console does): every group created, updated, moved, rotated or deleted, every key created or revoked, every embed session ended, every webhook and data source change (and connection check), with the acting key and client address',
    )
    .option('--group <id>', 'only this group: a team_id, or a user_group_id (in either environment)')
    .option('--since <time>', 'only records at or after this time (ISO 8601)')
    .option('--limit <n>', 'at most this many records (the newest)', '100')
    .option('--before <id>', 'only records older than this id: the next page, as the hint after a full page says')
    .option('--all', 'every matching record, following the cursor page by page (ignores --limit)')
    .option('--json', 'print a JSON array')
    .action(async (options: { group?: string; since?: string; limit: string; before?: string; all?: boolean; json?: boolean }) => {
      const limit = positiveInteger('--limit', options.limit);
      const filter: Omit<AuditQuery, 'limit'> = {
        newestFirst: true,
        ...(options.group !== undefined && {
          group: /^\d+$/.test(options.group) ? { teamId: Number(options.group) } : { providedId: options.group },
        }),
        ...(options.since !== undefined && { since: parseSince(options.since) }),
        ...(options.before !== undefined && { beforeId: positiveInteger('--before', options.before) }),
      };
      await withServices(async ({ audit }) => {
        const { records, nextBefore } = options.all
          ? { records: await everyRecord(audit, filter), nextBefore: undefined }
          : await onePage(audit, filter, limit);
        const views = records.map(auditView);
        if (options.json) output.log(JSON.stringify(views, null, 2));
        else if (views.length === 0) output.log('No audit records match.');
        else
          printTable(
            views.map((r) => ({
              id: String(r.id),
              at: isoTime(r.at),
              action: r.action,
              environment: r.environment,
              team_id: r.team_id === null ? '' : String(r.team_id),
              user_group_id:
                r.user_group_id ??
                (r.viewer_id !== undefined
                  ? `viewer ${r.viewer_id}`
                  : r.data_source_id !== undefined
                    ? `data source ${r.data_source_id}`
                    : ''),
              key: r.key_id ?? '',
              fields: r.fields.join(','),
              client: r.client_address ?? '',
              webhook: r.webhook_id ?? '',
            })),
            output,
          );
        // On stderr: stdout stays the records alone (a JSON array stays parseable).
        if (nextBefore !== undefined)
          output.error(
            `ugs: older records match too: \`ugs audit --before ${nextBefore}\` (with the same filters) shows the next ${limit}, \`--all\` every one.`,
          );
      }, output);
    });
}

/** The newest `limit` records matching, and the cursor of the next page when older ones match too. */
async function onePage(
  audit: AuditStore,
  filter: Omit<AuditQuery, 'limit'>,
  limit: number,
): Promise<{ records: AuditRecord[]; nextBefore: number | undefined }> {
  // One more than shown tells whether another page exists without counting the whole log.
  const records = await audit.listAuditRecords({ ...filter, limit: limit + 1 });
  if (records.length <= limit) return { records, nextBefore: undefined };
  const shown = records.slice(0, limit);
  return { records: shown, nextBefore: shown.at(-1)!.id };
}

async function everyRecord(audit: AuditStore, filter: Omit<AuditQuery, 'limit'>): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for (let beforeId = filter.beforeId; ;) {
    const page = await audit.listAuditRecords({ ...filter, limit: ALL_PAGE_SIZE, ...(beforeId !== undefined && { beforeId }) });
    all.push(...page);
    if (page.length < ALL_PAGE_SIZE) return all;
    beforeId = page.at(-1)!.id;
  }
}
