import type { ApiKeyRecord } from '../../api-keys/api-key.js';
import type { AuditRecord } from '../../audit/audit.js';
import type { DataSourceRecord } from '../../data-sources/data-source.js';
import type { Environment } from '../../kernel/environment.js';
import type { MetabaseSettingsRecord } from '../../metabase/metabase-settings.js';
import type { ImportBatch, TransferStore } from '../../transfer/transfer-store.js';
import type { UserGroupRecord } from '../../user-groups/user-group.js';
import { jsonOrNull } from '../json-column.js';
import { IMPORT_API_KEY } from './sql-api-keys.js';
import { IMPORT_AUDIT_RECORD, importedAuditRecord } from './sql-audit-log.js';
import { IMPORT_DATA_SOURCE } from './sql-data-sources.js';
import { IMPORT_METABASE_SETTINGS } from './sql-metabase.js';
import { IMPORT_GROUP_TAG } from './sql-group-tags.js';
import type { GroupTagRecord } from '../../group-tags/group-tag.js';
import { PUT_SETTING_IF_ABSENT } from './sql-settings.js';
import { run, type SqlDatabase, type TransactionWork } from './sql-database.js';
import { statement } from './sql-statement.js';

/** What an export reads: each table's own port pages through its rows. */
export interface TransferTables {
  userGroups: Pick<TransferStore, 'listUserGroupsAfter'>;
  apiKeys: Pick<TransferStore, 'listApiKeys'>;
  auditLog: Pick<TransferStore, 'listAuditRecordsAfter'>;
  dataSources: Pick<TransferStore, 'listDataSources'>;
  metabase: Pick<TransferStore, 'findMetabaseSettings'>;
  groupTags: Pick<TransferStore, 'listGroupTags'>;
}

const ANY_ROW = statement<{ found: boolean | number }>(
  'anyTransferredRow',
  `SELECT EXISTS (SELECT 1 FROM user_groups) OR EXISTS (SELECT 1 FROM api_keys) OR EXISTS (SELECT 1 FROM data_sources)
          OR EXISTS (SELECT 1 FROM metabase_settings) OR EXISTS (SELECT 1 FROM group_tags) OR EXISTS (SELECT 1 FROM audit_log) AS found`,
);
/**
 * A child may come before its parent (a move can put a group under a newer
 * one): PostgreSQL checks the link at COMMIT; SQLite checks none.
 */
const DEFER_PARENT_CHECK = statement('deferGroupParentCheck', { sqlite: '', postgres: 'SET CONSTRAINTS user_groups_parent DEFERRED' });
const IMPORT_USER_GROUP = statement(
  'importUserGroup',
  `INSERT INTO user_groups (team_id, environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at,
                            parent_team_id, emails, is_demo_group, hierarchy_level, group_tags)
   VALUES (@teamId, @environment, @providedId, @name, @mapping, @properties, @tokenHash, @tokenCiphertext, @createdAt, @updatedAt,
           @parentTeamId, @emails, @isDemoGroup, @hierarchyLevel, @groupTags)`,
);
/**
 * New rows must never reuse an imported id: SQLite's AUTOINCREMENT moves past
 * the ids inserted by itself, PostgreSQL's identity does not.
 */
const ADVANCE_IDS = [
  statement('advanceTeamIds', {
    sqlite: '',
    postgres: `SELECT setval(pg_get_serial_sequence('user_groups', 'team_id'), (SELECT max(team_id) FROM user_groups))
               WHERE EXISTS (SELECT 1 FROM user_groups)`,
  }),
  statement('advanceAuditIds', {
    sqlite: '',
    postgres: `SELECT setval(pg_get_serial_sequence('audit_log', 'id'), (SELECT max(id) FROM audit_log))
               WHERE EXISTS (SELECT 1 FROM audit_log)`,
  }),
];

function importUserGroup(group: UserGroupRecord) {
  return run(IMPORT_USER_GROUP, {
    ...group,
    mapping: jsonOrNull(group.mapping),
    properties: jsonOrNull(group.properties),
    parentTeamId: group.parentTeamId ?? null,
    emails: jsonOrNull(group.emails),
    isDemoGroup: group.isDemoGroup ? 1 : 0,
    hierarchyLevel: group.hierarchyLevel ?? null,
    groupTags: jsonOrNull(group.groupTags),
  });
}

function importGroupTag(tag: GroupTagRecord) {
  return run(IMPORT_GROUP_TAG, { ...tag });
}

function importApiKey(key: ApiKeyRecord) {
  return run(IMPORT_API_KEY, { ...key });
}

function importDataSource(record: DataSourceRecord) {
  return run(IMPORT_DATA_SOURCE, { ...record, connection: JSON.stringify(record.connection) });
}

function importMetabaseSettings(record: MetabaseSettingsRecord) {
  return run(IMPORT_METABASE_SETTINGS, { ...record });
}

function importAuditRecord(record: AuditRecord) {
  return run(IMPORT_AUDIT_RECORD, importedAuditRecord(record));
}

function importSetting(name: string, value: string) {
  return run(PUT_SETTING_IF_ABSENT, { name, value });
}

function* importRows(batch: ImportBatch): TransactionWork<void> {
  for (const tag of batch.groupTags) yield* importGroupTag(tag);
  for (const group of batch.userGroups) yield* importUserGroup(group);
  for (const key of batch.apiKeys) yield* importApiKey(key);
  for (const dataSource of batch.dataSources) yield* importDataSource(dataSource);
  for (const settings of batch.metabaseSettings) yield* importMetabaseSettings(settings);
  for (const record of batch.auditRecords) yield* importAuditRecord(record);
}

/** `ugs export` and `ugs import`, written once for both databases: pages of every table out, one transaction in. */
export class SqlTransfer implements TransferStore {
  constructor(
    private readonly db: SqlDatabase,
    private readonly tables: TransferTables,
  ) {}

  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]> {
    return this.tables.userGroups.listUserGroupsAfter(afterTeamId, limit);
  }

  listApiKeys(): Promise<ApiKeyRecord[]> {
    return this.tables.apiKeys.listApiKeys();
  }

  listDataSources(environment: Environment, afterId: string | null, limit: number): Promise<DataSourceRecord[]> {
    return this.tables.dataSources.listDataSources(environment, afterId, limit);
  }

  findMetabaseSettings(environment: Environment): Promise<MetabaseSettingsRecord | null> {
    return this.tables.metabase.findMetabaseSettings(environment);
  }

  listGroupTags(environment: Environment): Promise<GroupTagRecord[]> {
    return this.tables.groupTags.listGroupTags(environment);
  }

  listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]> {
    return this.tables.auditLog.listAuditRecordsAfter(afterId, limit);
  }

  async isEmpty(): Promise<boolean> {
    return !(await this.db.first(ANY_ROW))?.found;
  }

  /**
   * One transaction held while the batches arrive (read from a file as they
   * are written): a failure at any batch leaves the store as it was.
   */
  importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void> {
    return this.db.exclusiveSession(async (session) => {
      await session.run(function* () {
        yield* run(DEFER_PARENT_CHECK);
        for (const [name, value] of Object.entries(settings)) yield* importSetting(name, value);
      });
      for await (const batch of batches) await session.run(() => importRows(batch));
      await session.run(function* () {
        for (const advance of ADVANCE_IDS) yield* run(advance);
      });
    });
  }
}
