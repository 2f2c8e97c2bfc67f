import type Database from 'better-sqlite3';
import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { AuditRecord } from '../../audit/audit.js';
import type { ImportBatch, TransferStore } from '../../transfer/transfer-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import { IMPORT_API_KEY, type SqlApiKeys } from '../sql/sql-api-keys.js';
import { IMPORT_AUDIT_RECORD, importedAuditRecord, type SqlAuditLog } from '../sql/sql-audit-log.js';
import { PUT_SETTING_IF_ABSENT } from '../sql/sql-settings.js';
import type { SqliteHealth } from './sqlite-health.js';
import type { SqliteUserGroups } from './sqlite-user-groups.js';

/** What an export reads and an import writes, across every table: each table's own port does the rows. */
export interface SqliteTables {
  userGroups: SqliteUserGroups;
  apiKeys: SqlApiKeys;
  auditLog: SqlAuditLog;
}

/** `ugs export` and `ugs import` on SQLite: pages of every table out, one transaction in. */
export class SqliteTransfer implements TransferStore {
  private readonly anyRow: Database.Statement<[], { n: number }>;
  private readonly insertApiKey: Database.Statement;
  private readonly insertAuditRecord: Database.Statement;
  private readonly insertSetting: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly health: SqliteHealth,
    private readonly tables: SqliteTables,
  ) {
    this.insertApiKey = db.prepare(IMPORT_API_KEY.text.sqlite);
    this.insertAuditRecord = db.prepare(IMPORT_AUDIT_RECORD.text.sqlite);
    this.insertSetting = db.prepare(PUT_SETTING_IF_ABSENT.text.sqlite);
    this.anyRow = db.prepare(
      'SELECT (SELECT count(*) FROM user_groups) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM audit_log) AS n',
    );
  }

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
    this.health.assertUsable();
    return this.anyRow.get()!.n === 0;
  }

  async importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void> {
    this.health.assertUsable();
    // One transaction across awaits: an import is the only user of its connection.
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const [name, value] of Object.entries(settings)) this.insertSetting.run({ name, value });
      for await (const batch of batches) {
        for (const group of batch.userGroups) this.tables.userGroups.importRow(group);
        for (const key of batch.apiKeys) this.insertApiKey.run({ ...key });
        for (const record of batch.auditRecords) this.insertAuditRecord.run(importedAuditRecord(record));
      }
      this.health.beforeCommit();
      this.db.exec('COMMIT');
    } catch (error) {
      throw this.health.failed(error);
    } finally {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
  }
}
