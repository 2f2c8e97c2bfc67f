import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { AuditRecord } from '../../audit/audit.js';
import type { ImportBatch, TransferStore } from '../../transfer/transfer-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import { newGroupColumns } from '../group-columns.js';
import { IMPORT_API_KEY, type SqlApiKeys } from '../sql/sql-api-keys.js';
import { toPositional } from '../sql/sql-statement.js';
import { IMPORT_AUDIT_RECORD, importedAuditRecord, type SqlAuditLog } from '../sql/sql-audit-log.js';
import { PUT_SETTING_IF_ABSENT } from '../sql/sql-settings.js';
import type { PostgresQueries } from './postgres-queries.js';
import { SQL } from './postgres-statements.js';
import type { PostgresUserGroups } from './postgres-user-groups.js';

/** What an export reads: each table's own port pages through its rows. */
export interface PostgresTables {
  userGroups: PostgresUserGroups;
  apiKeys: SqlApiKeys;
  auditLog: SqlAuditLog;
}

/** `ugs export` and `ugs import` on PostgreSQL: pages of every table out, one transaction in. */
export class PostgresTransfer implements TransferStore {
  constructor(
    private readonly queries: PostgresQueries,
    private readonly tables: PostgresTables,
  ) {}

  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return this.tables.userGroups.listUserGroupsAfter(afterTeamId, limit);
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.tables.apiKeys.listApiKeys();
  }

  listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    return this.tables.auditLog.listAuditRecordsAfter(afterId, limit);
  }

  async isEmpty(): Promise<boolean> {
    return !(await this.queries.query<{ any: boolean }>('anyRow', [])).rows[0]?.any;
  }

  async importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void> {
    const importKey = toPositional(IMPORT_API_KEY.text.postgres);
    const importAudit = toPositional(IMPORT_AUDIT_RECORD.text.postgres);
    const putSetting = toPositional(PUT_SETTING_IF_ABSENT.text.postgres);
    const client = await this.queries.connect();
    try {
      await client.query('BEGIN');
      for (const [name, value] of Object.entries(settings))
        await client.query({
          name: 'ugs_putSettingIfAbsent',
          text: putSetting.text,
          values: putSetting.names.map((n) => ({ name, value })[n]),
        });
      // A child may come before its parent (a move can put a group under a newer one): the parent link is checked at COMMIT.
      await client.query('SET CONSTRAINTS user_groups_parent DEFERRED');
      for await (const batch of batches) {
        for (const g of batch.userGroups)
          await client.query({
            name: 'ugs_importGroup',
            text: SQL.importGroup,
            values: [g.teamId, ...newGroupColumns(g), g.parentTeamId ?? null],
          });
        for (const k of batch.apiKeys)
          await client.query({
            name: 'ugs_importApiKey',
            text: importKey.text,
            values: importKey.names.map((n) => k[n as keyof typeof k]),
          });
        for (const a of batch.auditRecords) {
          const values = importedAuditRecord(a);
          await client.query({ name: 'ugs_importAuditRecord', text: importAudit.text, values: importAudit.names.map((n) => values[n]) });
        }
      }
      await client.query(SQL.advanceTeamIds);
      await client.query(SQL.advanceAuditIds);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}
