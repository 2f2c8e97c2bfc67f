import type { Command } from 'commander';
import type { AuditQuery, AuditRecord } from '../../domain/audit.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';

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
  };
}

function parseSince(text: string): string {
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw new CliError(`--since ${JSON.stringify(text)} is not a time; use ISO 8601, e.g. 2026-11-22 or 2026-11-22T10:00:00Z.`);
  return time.toISOString();
}

export function auditCommand(program: Command): void {
  program
    .command('audit')
    .description('show the audit log: every group created, updated, moved, rotated or deleted, every key created or revoked, every embed session ended and every webhook change, with the acting key and client address, oldest first')
    .option('--group <id>', 'only this group: a team_id, or a user_group_id (in either environment)')
    .option('--since <time>', 'only records at or after this time (ISO 8601)')
    .option('--limit <n>', 'at most this many records', '1000')
    .option('--json', 'print a JSON array')
    .action(async (options: { group?: string; since?: string; limit: string; json?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive whole number.');
      const query: AuditQuery = {
        limit,
        ...(options.group !== undefined && { group: /^\d+$/.test(options.group) ? { teamId: Number(options.group) } : { providedId: options.group } }),
        ...(options.since !== undefined && { since: parseSince(options.since) }),
      };
      await withServices(async ({ audit }) => {
        const records = (await audit.listAuditRecords(query)).map(auditView);
        if (options.json) return console.log(JSON.stringify(records, null, 2));
        if (records.length === 0) return console.log('No audit records match.');
        printTable(
          records.map((r) => ({
            at: r.at,
            action: r.action,
            environment: r.environment,
            team_id: r.team_id === null ? '' : String(r.team_id),
            user_group_id: r.user_group_id ?? '',
            key: r.key_id ?? '',
            fields: r.fields.join(','),
            client: r.client_address ?? '',
            webhook: r.webhook_id ?? '',
          })),
        );
      });
    });
}
