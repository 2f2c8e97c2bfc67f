import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { AuditRecord } from '../../audit/audit.js';
import type { ImportBatch, TransferStore } from '../../transfer/transfer-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import { newGroupColumns } from '../group-columns.js';
import { IMPORT_API_KEY, type SqlApiKeys } from '../sql/sql-api-keys.js';
import { toPositional } from '../sql/sql-statement.js';
import type { PostgresAuditLog } from './postgres-audit-log.js';
import type { PostgresQueries } from './postgres-queries.js';
import { SQL } from './postgres-statements.js';
import type { PostgresUserGroups } from './postgres-user-groups.js';

/** What an export reads: each table's own port pages through its rows. */
export interface PostgresTables {
  userGroups: PostgresUserGroups;
  apiKeys: SqlApiKeys;
  auditLog: PostgresAuditLog;
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
    const client = await this.queries.connect();
    try {
      await client.query('BEGIN');
      for (const [name, value] of Object.entries(settings))
        await client.query({ name: 'ugs_putSettingIfAbsent', text: SQL.putSettingIfAbsent, values: [name, value] });
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
          await client.query({
            name: 'ugs_importAudit',
            text: SQL.importAudit,
            values: [
              a.id,
              a.at,
              a.action,
              a.environment,
              a.teamId,
              a.providedId,
              a.keyId,
              JSON.stringify(a.fields),
              a.clientAddress,
              a.webhookId ?? null,
              a.viewerId ?? null,
            ],
          });
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
